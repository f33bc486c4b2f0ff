#!/usr/bin/env bash
# Brings up the project's local Kubernetes: several nodes on this one machine (TPCC_NODES, default
# 4: node 0 also runs the control plane; 3 more give each database instance of the reference
# configuration a machine of its own), each with its own containerd (+ runc + CNI bridge, Debian
# packages), kubelet, cgroup root, bridge and pod CIDR; one etcd, kube-apiserver, controller-manager,
# scheduler and kube-proxy (iptables); CoreDNS, local-path-provisioner as the default StorageClass
# (volumes under each node's own folder, bound to that node), and metrics-server (the
# metrics.k8s.io API behind kubectl top, scraping every kubelet). Kubernetes v1.34 is built from
# source through the Go module proxy (hack/k8s-bins.sh) and the images by hack/images.sh; nothing
# is downloaded from a registry. hack/cluster/node.sh takes a node away abruptly and brings it
# back; hack/cluster/down.sh undoes everything.
#
# usage: hack/cluster/up.sh          then: export KUBECONFIG=$(hack/cluster/status.sh kubeconfig)
# env:   TPCC_NODES (4)
set -euo pipefail
source "$(dirname "$0")/common.sh"
start_time=$(date +%s)
step() { log "[$(($(date +%s) - start_time))s] $*"; }

[ "$(id -u)" = 0 ] || die "needs root (containerd, kubelet, iptables, bridges, cgroups)"
[[ "$NODES" =~ ^[1-9][0-9]?$ ]] && [ "$NODES" -le 16 ] || die "TPCC_NODES=$NODES: want 1..16 nodes"
if pid_alive kube-apiserver; then
  log "already up"; echo "$KUBECONFIG_FILE"; exit 0
fi
# A cluster that stopped without down.sh (a crash, a killed job) left its etcd, its nodes' state and
# its changes to the machine: a new cluster on top would inherit its dead nodes and their pods.
if [ -d "$STATE/etcd" ] || [ -d "$STATE/nodes" ]; then
  log "a stopped cluster's state is in $STATE: taking it down first (hack/cluster/down.sh)"
  "$ROOT/hack/cluster/down.sh" >&2
fi
[ -S /run/containerd/containerd.sock ] && log "note: another containerd runs on this machine; this cluster's nodes use their own (under $RUN_DIR)"

mapfile -t missing < <(cluster_missing_packages)
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

BIN=$(k8s_bins)
KUBECTL="$BIN/kubectl"
IMAGES=$("$ROOT/hack/images.sh" cluster)
step "binaries in $BIN, images in $IMAGES"

mapfile -t HIERARCHIES < <(node_hierarchies)
[ ${#HIERARCHIES[@]} -gt 0 ] || die "no cgroup hierarchy found under /sys/fs/cgroup"
CGROUP2=false
if [ -z "$(cgroup_hierarchies)" ]; then
  grep -q " /sys/fs/cgroup cgroup2 " /proc/mounts || die "no cgroup v1 hierarchy and no cgroup2 at /sys/fs/cgroup"
  CGROUP2=true
fi

mkdir -p "$STATE"/{pids,logs,pki} "$RUN_DIR"
echo "$NODES" > "$STATE/nodes.count"
# Remember what the machine looked like, once: down.sh puts it back.
if [ ! -f "$STATE/machine.before" ]; then
  {
    for s in "${SYSCTLS[@]}"; do
      if v=$(sysctl -n "$s" 2>/dev/null); then echo "sysctl $s=$v"; fi
    done
    for d in "${FIXED_HOST_DIRS[@]}"; do [ -e "$d" ] || echo "absent $d"; done
    for i in $(seq 0 $((NODES - 1))); do
      for h in "${HIERARCHIES[@]}"; do [ -e "$h/$(node_cgroup "$i")" ] || echo "cgroup $h/$(node_cgroup "$i")"; done
      ip link show "$(node_bridge "$i")" >/dev/null 2>&1 || echo "bridge $(node_bridge "$i")"
    done
  } > "$STATE/machine.before"
fi
sysctl -qw net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1 net.bridge.bridge-nf-call-ip6tables=1

launch() { # NAME COMMAND...: start in the background, remember its PID
  local name=$1; shift
  nohup "$@" > "$STATE/logs/$name.log" 2>&1 &
  echo $! > "$STATE/pids/$name"
}
wait_for() { # SECONDS DESCRIPTION COMMAND...
  local seconds=$1 what=$2; shift 2
  for _ in $(seq $((seconds * 2))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done
  die "$what not ready after ${seconds}s; logs in $STATE/logs"
}

# --- each node: its cgroup root (kubelet's cgroupRoot, under every v1 hierarchy, or in the v2
# tree), its bridge and CNI configuration, its containerd
node_cgroups() { # I
  local i=$1 cg h
  cg=$(node_cgroup "$i")
  for h in "${HIERARCHIES[@]}"; do
    mkdir -p "$h/$cg"
    if [ -f "$h/cpuset.cpus" ] && [ ! -s "$h/$cg/cpuset.cpus" ]; then # a new cpuset has no CPUs until given its parent's
      cat "$h/cpuset.cpus" > "$h/$cg/cpuset.cpus"
      cat "$h/cpuset.mems" > "$h/$cg/cpuset.mems"
    fi
    if $CGROUP2; then
      for c in cpu cpuset memory pids io hugetlb; do
        grep -qw "$c" "$h/cgroup.controllers" && echo "+$c" > "$h/cgroup.subtree_control" 2>/dev/null || true
        grep -qw "$c" "$h/$cg/cgroup.controllers" && echo "+$c" > "$h/$cg/cgroup.subtree_control" 2>/dev/null || true
      done
    fi
    case $h in */freezer | */pids | /sys/fs/cgroup) mkdir -p "$h/$cg/node" ;; esac
    if [ -f "$h/$cg/freezer.state" ]; then echo THAWED > "$h/$cg/freezer.state"; fi
  done
}

node_network() { # I
  local i=$1 bridge ip dir
  bridge=$(node_bridge "$i") ip=$(node_ip "$i") dir=$(node_dir "$i")
  if ! ip link show "$bridge" >/dev/null 2>&1; then
    ip link add "$bridge" type bridge
    ip addr add "$ip/24" dev "$bridge"
  fi
  ip link set "$bridge" up
  mkdir -p "$dir/cni/net.d" "$dir/cni/ipam"
  cat > "$dir/cni/net.d/10-tpcc.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "tpcc-$(node_name "$i")",
  "plugins": [
    {"type": "bridge", "bridge": "$bridge", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "dataDir": "$dir/cni/ipam",
              "ranges": [[{"subnet": "$(node_cidr "$i")", "gateway": "$ip"}]], "routes": [{"dst": "0.0.0.0/0"}]}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
}

node_containerd() { # I
  local i=$1 dir run
  dir=$(node_dir "$i") run=$(node_run "$i")
  mkdir -p "$run"
  cat > "$dir/containerd.toml" <<EOF
version = 2
root = "$dir/containerd"
state = "$run/containerd-state"
[grpc]
  address = "$(node_socket "$i")"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.k8s.io/pause:3.10.1"
  enable_unprivileged_ports = true
  enable_unprivileged_icmp = true
  # Where the capability bounding set lacks CAP_SYS_RESOURCE (as in this VM), runc cannot give
  # sandboxes a negative oom_score_adj; clamp to containerd's own score instead.
  restrict_oom_score_adj = true
  # exec, attach and port-forward streams: on loopback, a free port per node.
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$dir/cni/net.d"
EOF
  printf '%s\n' containerd --config "$dir/containerd.toml" > "$dir/containerd.args"
  launch_node "$i" containerd
}

for i in $(seq 0 $((NODES - 1))); do
  node_cgroups "$i"
  node_network "$i"
  node_containerd "$i"
done
for i in $(seq 0 $((NODES - 1))); do wait_for 30 "containerd of $(node_name "$i")" ctr_node "$i" version; done
source "$IMAGES/images.env"
# Every node gets every image (a pod may land on any node). The imports run side by side.
import_start=$(date +%s)
importers=()
for i in $(seq 0 $((NODES - 1))); do
  (for archive in $CLUSTER_ARCHIVES; do ctr_node "$i" images import "$archive" >/dev/null; done) &
  importers+=($!)
done
for p in "${importers[@]}"; do wait "$p" || die "importing the images into a node's containerd failed"; done
step "$NODES containerds up; images imported into each in $(($(date +%s) - import_start))s: $(ctr_node 0 images ls -q | grep -v '^sha256:' | tr '\n' ' ')"

# --- certificates and kubeconfigs
P="$STATE/pki"
issue() { # NAME CN ORG SANS [CA]
  local name=$1 cn=$2 org=$3 sans=$4 ca=${5:-ca} subject
  subject="/CN=$cn"; [ -n "$org" ] && subject="/O=$org/CN=$cn"
  openssl genrsa -out "$P/$name.key" 2048 2>/dev/null
  openssl req -new -key "$P/$name.key" -subj "$subject" -out "$P/$name.csr"
  {
    echo "basicConstraints=CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    if [ -n "$sans" ]; then echo "extendedKeyUsage=serverAuth,clientAuth"; echo "subjectAltName=$sans"
    else echo "extendedKeyUsage=clientAuth"; fi
  } > "$P/$name.ext"
  openssl x509 -req -in "$P/$name.csr" -CA "$P/$ca.crt" -CAkey "$P/$ca.key" -CAcreateserial -days 3650 \
    -extfile "$P/$name.ext" -out "$P/$name.crt" 2>/dev/null
  rm -f "$P/$name.csr" "$P/$name.ext"
}
kubeconfig() { # NAME CN ORG: a client certificate and a kubeconfig using it
  local name=$1 cn=$2 kc="$STATE/$1.kubeconfig"
  issue "$name" "$cn" "$3" ""
  "$KUBECTL" config set-cluster local --server="https://$API_IP:6443" --certificate-authority="$P/ca.crt" --embed-certs=true --kubeconfig="$kc" >/dev/null
  "$KUBECTL" config set-credentials "$cn" --client-certificate="$P/$name.crt" --client-key="$P/$name.key" --embed-certs=true --kubeconfig="$kc" >/dev/null
  "$KUBECTL" config set-context tpcc-local --cluster=local --user="$cn" --kubeconfig="$kc" >/dev/null
  "$KUBECTL" config use-context tpcc-local --kubeconfig="$kc" >/dev/null
}
if [ ! -f "$P/ca.crt" ]; then
  for ca in ca front-proxy-ca; do
    openssl genrsa -out "$P/$ca.key" 2048 2>/dev/null
    openssl req -x509 -new -nodes -key "$P/$ca.key" -subj "/CN=tpcc-cluster-$ca" -days 3650 -out "$P/$ca.crt"
  done
  openssl genrsa -out "$P/sa.key" 2048 2>/dev/null
  openssl rsa -in "$P/sa.key" -pubout -out "$P/sa.pub" 2>/dev/null
  issue apiserver kube-apiserver "" "DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost,DNS:$(node_name 0),IP:127.0.0.1,IP:$API_IP,IP:$KUBERNETES_SERVICE_IP"
  issue apiserver-kubelet-client kube-apiserver-kubelet-client system:masters ""
  issue front-proxy-client front-proxy-client "" "" front-proxy-ca
  kubeconfig admin kubernetes-admin system:masters
  kubeconfig controller-manager system:kube-controller-manager ""
  kubeconfig scheduler system:kube-scheduler ""
  kubeconfig kube-proxy system:kube-proxy ""
fi
for i in $(seq 0 $((NODES - 1))); do # each kubelet: a serving certificate for its name and IP, a client identity
  name=$(node_name "$i")
  [ -f "$P/kubelet-serving-$name.crt" ] || issue "kubelet-serving-$name" "system:node:$name" system:nodes "DNS:$name,IP:$(node_ip "$i")"
  [ -f "$STATE/kubelet-$name.kubeconfig" ] || kubeconfig "kubelet-$name" "system:node:$name" system:nodes
done
step "certificates ready"

# --- control plane
# --enable-aggregator-routing: aggregated APIs (metrics-server) are dialled at their endpoints' pod
# IPs, over the bridges. A Service IP dialled before kube-proxy has programmed it leaves through the
# machine's default route, and the API server keeps reusing that connection (seen here: the
# APIService's discovery check, which skips TLS verification, got 404s from beyond the gateway).
launch etcd "$BIN/etcd" --name=tpcc-etcd --data-dir="$STATE/etcd" \
  --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls="http://127.0.0.1:$((ETCD_PORT + 1))" --initial-advertise-peer-urls="http://127.0.0.1:$((ETCD_PORT + 1))" \
  --initial-cluster="tpcc-etcd=http://127.0.0.1:$((ETCD_PORT + 1))" --unsafe-no-fsync --log-level=warn
launch kube-apiserver "$BIN/kube-apiserver" \
  --advertise-address="$API_IP" --bind-address="$API_IP" --secure-port=6443 \
  --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
  --client-ca-file="$P/ca.crt" --tls-cert-file="$P/apiserver.crt" --tls-private-key-file="$P/apiserver.key" \
  --kubelet-client-certificate="$P/apiserver-kubelet-client.crt" --kubelet-client-key="$P/apiserver-kubelet-client.key" \
  --kubelet-certificate-authority="$P/ca.crt" --kubelet-preferred-address-types=InternalIP \
  --service-account-key-file="$P/sa.pub" --service-account-signing-key-file="$P/sa.key" \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-cluster-ip-range="$SERVICE_CIDR" \
  --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction --allow-privileged=true \
  --requestheader-client-ca-file="$P/front-proxy-ca.crt" --proxy-client-cert-file="$P/front-proxy-client.crt" \
  --proxy-client-key-file="$P/front-proxy-client.key" --requestheader-allowed-names=front-proxy-client \
  --requestheader-extra-headers-prefix=X-Remote-Extra- --requestheader-group-headers=X-Remote-Group \
  --requestheader-username-headers=X-Remote-User \
  --enable-aggregator-routing=true
wait_for 90 kube-apiserver api_ready
step "API server ready at https://$API_IP:6443"

# Node CIDRs are fixed per node (its bridge's); up.sh writes them into the Node objects itself.
launch kube-controller-manager "$BIN/kube-controller-manager" \
  --kubeconfig="$STATE/controller-manager.kubeconfig" \
  --authentication-kubeconfig="$STATE/controller-manager.kubeconfig" --authorization-kubeconfig="$STATE/controller-manager.kubeconfig" \
  --bind-address=127.0.0.1 --leader-elect=false \
  --root-ca-file="$P/ca.crt" --service-account-private-key-file="$P/sa.key" \
  --cluster-signing-cert-file="$P/ca.crt" --cluster-signing-key-file="$P/ca.key" \
  --use-service-account-credentials=true \
  --allocate-node-cidrs=false --cluster-cidr="$CLUSTER_CIDR" \
  --service-cluster-ip-range="$SERVICE_CIDR"
launch kube-scheduler "$BIN/kube-scheduler" \
  --kubeconfig="$STATE/scheduler.kubeconfig" \
  --authentication-kubeconfig="$STATE/scheduler.kubeconfig" --authorization-kubeconfig="$STATE/scheduler.kubeconfig" \
  --bind-address=127.0.0.1 --leader-elect=false

# --- the nodes' kubelets: each on its own IP (10250 and its healthz port there), root dir, pod
# logs, volume plugin dir, containerd and cgroup root
node_kubelet() { # I
  local i=$1 name dir ip
  name=$(node_name "$i") dir=$(node_dir "$i") ip=$(node_ip "$i")
  mkdir -p "$dir/volume-plugins" "$dir/pod-logs"
  cat > "$dir/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $ip
healthzBindAddress: $ip
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $P/ca.crt}
authorization: {mode: Webhook}
tlsCertFile: $P/kubelet-serving-$name.crt
tlsPrivateKeyFile: $P/kubelet-serving-$name.key
cgroupDriver: cgroupfs
cgroupRoot: /$(node_cgroup "$i")
containerRuntimeEndpoint: unix://$(node_socket "$i")
clusterDNS: [$DNS_SERVICE_IP]
clusterDomain: cluster.local
failSwapOn: false
failCgroupV1: false
oomScoreAdj: 0
resolvConf: /etc/resolv.conf
podLogsDir: $dir/pod-logs
volumePluginDir: $dir/volume-plugins
serializeImagePulls: false
maxPods: 110
# Imported images cannot be pulled again offline: never collect them.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
EOF
  # --containerd: the kubelet's cAdvisor finds the pods' containers (their network namespaces, for
  # per-pod network figures) through this node's containerd, not the machine's default socket;
  # without it cAdvisor sees raw cgroups only and the pods have no network or disk series.
  printf '%s\n' "$BIN/kubelet" --config="$dir/kubelet.yaml" --kubeconfig="$STATE/kubelet-$name.kubeconfig" \
    --root-dir="$dir/kubelet" --cert-dir="$dir/kubelet-pki" --node-ip="$ip" --hostname-override="$name" \
    --containerd="$(node_socket "$i")" --v=1 > "$dir/kubelet.args"
  launch_node "$i" kubelet
}
for i in $(seq 0 $((NODES - 1))); do node_kubelet "$i"; done

# One kube-proxy: the nodes share the machine's network namespace, so one set of iptables rules
# serves them all.
cat > "$STATE/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $STATE/kube-proxy.kubeconfig}
mode: iptables
clusterCIDR: $CLUSTER_CIDR
hostnameOverride: $(node_name 0)
bindAddress: $API_IP
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
oomScoreAdj: 0
nodePortAddresses: ["$API_IP/32"]
conntrack: {maxPerCore: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
EOF
launch kube-proxy "$BIN/kube-proxy" --config="$STATE/kube-proxy.yaml"

export KUBECONFIG=$KUBECONFIG_FILE
for i in $(seq 0 $((NODES - 1))); do
  name=$(node_name "$i")
  wait_for 120 "node $name" "$KUBECTL" get "node/$name"
  # The pod CIDR its bridge serves (settable once; a node object kept from before has it).
  [ -n "$("$KUBECTL" get "node/$name" -o jsonpath='{.spec.podCIDR}')" ] ||
    "$KUBECTL" patch "node/$name" --type=merge -p "{\"spec\":{\"podCIDR\":\"$(node_cidr "$i")\",\"podCIDRs\":[\"$(node_cidr "$i")\"]}}" >/dev/null
done
for i in $(seq 0 $((NODES - 1))); do
  wait_for 120 "node $(node_name "$i")" "$KUBECTL" wait --for=condition=Ready "node/$(node_name "$i")" --timeout=2s
done
step "$NODES nodes Ready"

# --- cluster add-ons: CoreDNS and the default StorageClass (each node's volumes in its own folder)
nodes=()
for i in $(seq 0 $((NODES - 1))); do nodes+=("$(node_name "$i")"); done
sed "s#@COREDNS_IMAGE@#$COREDNS_IMAGE#; s#@DNS_SERVICE_IP@#$DNS_SERVICE_IP#" "$ROOT/hack/cluster/coredns.yaml" | pin_system | "$KUBECTL" apply -f - >/dev/null
"$ROOT/hack/cluster/local-path.sh" "$IMAGES" "$STATE/local-path" "${nodes[@]}" | pin_system | "$KUBECTL" apply -f - >/dev/null
wait_for 60 "the default ServiceAccount" "$KUBECTL" get serviceaccount default
"$KUBECTL" -n kube-system rollout status deploy/coredns --timeout=180s >/dev/null
"$KUBECTL" -n local-path-storage rollout status deploy/local-path-provisioner --timeout=180s >/dev/null
step "CoreDNS and local-path-provisioner ready"

# --- metrics-server behind the aggregated metrics.k8s.io API (the API server's front-proxy flags
# above let it authenticate the requests kube-apiserver proxies to it); ready once it reports pods
# and every node (it scrapes each kubelet).
"$ROOT/hack/cluster/metrics-server.sh" "$IMAGES" "$P" | pin_system | "$KUBECTL" apply -f - >/dev/null
"$KUBECTL" -n kube-system rollout status deploy/metrics-server --timeout=180s >/dev/null ||
  die "metrics-server not ready; see kubectl -n kube-system describe deploy/metrics-server and its logs"
metrics_ready() {
  "$KUBECTL" get --raw /apis/metrics.k8s.io/v1beta1/pods | grep -q '"containers":\[{' &&
    [ "$("$KUBECTL" get --raw /apis/metrics.k8s.io/v1beta1/nodes | grep -o '"name":"tpcc-node-[0-9]*"' | sort -u | wc -l)" -eq "$NODES" ]
}
wait_for 120 "metrics.k8s.io metrics of every pod and node (see kubectl get apiservice v1beta1.metrics.k8s.io; kubectl -n kube-system logs deploy/metrics-server)" metrics_ready
step "metrics-server ready (kubectl top, $NODES nodes); cluster up. export KUBECONFIG=$KUBECONFIG_FILE"
echo "$KUBECONFIG_FILE"
