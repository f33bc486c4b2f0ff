#!/usr/bin/env bash
# Brings up the project's local single-node Kubernetes: etcd, kube-apiserver, controller-manager,
# scheduler, kubelet with containerd + runc + CNI bridge (Debian packages), kube-proxy (iptables),
# CoreDNS, local-path-provisioner as the default StorageClass, and metrics-server (the
# metrics.k8s.io API behind kubectl top). Kubernetes v1.34 is built from source through the Go
# module proxy (hack/k8s-bins.sh) and the images by hack/images.sh; nothing is downloaded from a
# registry. Undo everything with hack/cluster/down.sh.
#
# usage: hack/cluster/up.sh          then: export KUBECONFIG=$(hack/cluster/status.sh kubeconfig)
set -euo pipefail
source "$(dirname "$0")/common.sh"
start_time=$(date +%s)
step() { log "[$(($(date +%s) - start_time))s] $*"; }

[ "$(id -u)" = 0 ] || die "needs root (containerd, kubelet, iptables, a bridge)"
if pid_alive kube-apiserver; then
  log "already up"; echo "$KUBECONFIG_FILE"; exit 0
fi
[ -S /run/containerd/containerd.sock ] && log "note: another containerd runs on this machine; this cluster uses its own ($CONTAINERD_SOCKET)"

missing=()
for tool in containerd:containerd runc:runc iptables:iptables openssl:openssl; do
  command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
[ -x /usr/lib/cni/bridge ] || missing+=(containernetworking-plugins)
[ -x /bin/busybox ] || missing+=(busybox-static)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

BIN=$(k8s_bins)
KUBECTL="$BIN/kubectl"
IMAGES=$("$ROOT/hack/images.sh" cluster)
step "binaries in $BIN, images in $IMAGES"

mkdir -p "$STATE"/{pids,logs,pki,cni/net.d,cni/ipam,local-path} "$RUN_DIR"
# Remember what the machine looked like, once: down.sh puts it back.
if [ ! -f "$STATE/machine.before" ]; then
  {
    for s in "${SYSCTLS[@]}"; do
      if v=$(sysctl -n "$s" 2>/dev/null); then echo "sysctl $s=$v"; fi
    done
    for d in "${FIXED_HOST_DIRS[@]}"; do [ -e "$d" ] || echo "absent $d"; done
    # kubelet's cgroups: under every v1 controller, or at the root of a v2 hierarchy.
    for d in /sys/fs/cgroup/*/ /sys/fs/cgroup/; do
      if [ ! -L "${d%/}" ] && [ ! -e "${d}kubepods" ]; then echo "cgroup ${d}kubepods"; fi
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

# --- the node's network: a host-only bridge the CNI bridge plugin adopts as the pods' gateway
if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
  ip link add "$BRIDGE" type bridge
  ip addr add "$NODE_IP/24" dev "$BRIDGE"
fi
ip link set "$BRIDGE" up
cat > "$STATE/cni/net.d/10-tpcc.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "tpcc-cluster",
  "plugins": [
    {"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "dataDir": "$STATE/cni/ipam",
              "ranges": [[{"subnet": "$NODE_POD_CIDR", "gateway": "$NODE_IP"}]], "routes": [{"dst": "0.0.0.0/0"}]}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF

# --- containerd, with its own root and socket
cat > "$STATE/containerd.toml" <<EOF
version = 2
root = "$STATE/containerd"
state = "$RUN_DIR/containerd-state"
[grpc]
  address = "$CONTAINERD_SOCKET"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.k8s.io/pause:3.10.1"
  enable_unprivileged_ports = true
  enable_unprivileged_icmp = true
  # Where the capability bounding set lacks CAP_SYS_RESOURCE (as in this VM), runc cannot give
  # sandboxes a negative oom_score_adj; clamp to containerd's own score instead.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$STATE/cni/net.d"
EOF
launch containerd containerd --config "$STATE/containerd.toml"
ctr() { command ctr --address "$CONTAINERD_SOCKET" "$@"; }
wait_for 30 containerd ctr version
source "$IMAGES/images.env"
for archive in $CLUSTER_ARCHIVES; do ctr -n k8s.io images import "$archive" >/dev/null; done
step "containerd up; images: $(ctr -n k8s.io images ls -q | grep -v '^sha256:' | tr '\n' ' ')"

# --- certificates and kubeconfigs
P="$STATE/pki"
if [ ! -f "$P/ca.crt" ]; then
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
  for ca in ca front-proxy-ca; do
    openssl genrsa -out "$P/$ca.key" 2048 2>/dev/null
    openssl req -x509 -new -nodes -key "$P/$ca.key" -subj "/CN=tpcc-cluster-$ca" -days 3650 -out "$P/$ca.crt"
  done
  openssl genrsa -out "$P/sa.key" 2048 2>/dev/null
  openssl rsa -in "$P/sa.key" -pubout -out "$P/sa.pub" 2>/dev/null
  issue apiserver kube-apiserver "" "DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost,DNS:$NODE,IP:127.0.0.1,IP:$NODE_IP,IP:$KUBERNETES_SERVICE_IP"
  issue apiserver-kubelet-client kube-apiserver-kubelet-client system:masters ""
  issue kubelet-serving "system:node:$NODE" system:nodes "DNS:$NODE,IP:$NODE_IP"
  issue front-proxy-client front-proxy-client "" "" front-proxy-ca
  kubeconfig() { # NAME CN ORG: a client certificate and a kubeconfig using it
    local name=$1 cn=$2 kc="$STATE/$1.kubeconfig"
    issue "$name" "$cn" "$3" ""
    "$KUBECTL" config set-cluster local --server="https://$NODE_IP:6443" --certificate-authority="$P/ca.crt" --embed-certs=true --kubeconfig="$kc" >/dev/null
    "$KUBECTL" config set-credentials "$cn" --client-certificate="$P/$name.crt" --client-key="$P/$name.key" --embed-certs=true --kubeconfig="$kc" >/dev/null
    "$KUBECTL" config set-context tpcc-local --cluster=local --user="$cn" --kubeconfig="$kc" >/dev/null
    "$KUBECTL" config use-context tpcc-local --kubeconfig="$kc" >/dev/null
  }
  kubeconfig admin kubernetes-admin system:masters
  kubeconfig controller-manager system:kube-controller-manager ""
  kubeconfig scheduler system:kube-scheduler ""
  kubeconfig kubelet "system:node:$NODE" system:nodes
  kubeconfig kube-proxy system:kube-proxy ""
fi
step "certificates ready"

# --- control plane
# --enable-aggregator-routing: aggregated APIs (metrics-server) are dialled at their endpoints' pod
# IPs, over the bridge. A Service IP dialled before kube-proxy has programmed it leaves through the
# machine's default route, and the API server keeps reusing that connection (seen here: the
# APIService's discovery check, which skips TLS verification, got 404s from beyond the gateway).
launch etcd "$BIN/etcd" --name="$NODE" --data-dir="$STATE/etcd" \
  --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls="http://127.0.0.1:$((ETCD_PORT + 1))" --initial-advertise-peer-urls="http://127.0.0.1:$((ETCD_PORT + 1))" \
  --initial-cluster="$NODE=http://127.0.0.1:$((ETCD_PORT + 1))" --unsafe-no-fsync --log-level=warn
launch kube-apiserver "$BIN/kube-apiserver" \
  --advertise-address="$NODE_IP" --bind-address="$NODE_IP" --secure-port=6443 \
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
step "API server ready at https://$NODE_IP:6443"

launch kube-controller-manager "$BIN/kube-controller-manager" \
  --kubeconfig="$STATE/controller-manager.kubeconfig" \
  --authentication-kubeconfig="$STATE/controller-manager.kubeconfig" --authorization-kubeconfig="$STATE/controller-manager.kubeconfig" \
  --bind-address=127.0.0.1 --leader-elect=false \
  --root-ca-file="$P/ca.crt" --service-account-private-key-file="$P/sa.key" \
  --cluster-signing-cert-file="$P/ca.crt" --cluster-signing-key-file="$P/ca.key" \
  --use-service-account-credentials=true \
  --allocate-node-cidrs=true --cluster-cidr="$CLUSTER_CIDR" --node-cidr-mask-size=24 \
  --service-cluster-ip-range="$SERVICE_CIDR"
launch kube-scheduler "$BIN/kube-scheduler" \
  --kubeconfig="$STATE/scheduler.kubeconfig" \
  --authentication-kubeconfig="$STATE/scheduler.kubeconfig" --authorization-kubeconfig="$STATE/scheduler.kubeconfig" \
  --bind-address=127.0.0.1 --leader-elect=false

# --- the node
cat > "$STATE/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
healthzBindAddress: 127.0.0.1
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $P/ca.crt}
authorization: {mode: Webhook}
tlsCertFile: $P/kubelet-serving.crt
tlsPrivateKeyFile: $P/kubelet-serving.key
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://$CONTAINERD_SOCKET
clusterDNS: [$DNS_SERVICE_IP]
clusterDomain: cluster.local
failSwapOn: false
failCgroupV1: false
oomScoreAdj: 0
resolvConf: /etc/resolv.conf
podLogsDir: $STATE/pod-logs
serializeImagePulls: false
maxPods: 110
# Imported images cannot be pulled again offline: never collect them.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
EOF
launch kubelet "$BIN/kubelet" --config="$STATE/kubelet.yaml" --kubeconfig="$STATE/kubelet.kubeconfig" \
  --root-dir="$STATE/kubelet" --node-ip="$NODE_IP" --hostname-override="$NODE" --v=1

cat > "$STATE/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $STATE/kube-proxy.kubeconfig}
mode: iptables
clusterCIDR: $CLUSTER_CIDR
hostnameOverride: $NODE
bindAddress: $NODE_IP
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
oomScoreAdj: 0
nodePortAddresses: ["$NODE_IP/32"]
conntrack: {maxPerCore: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
EOF
launch kube-proxy "$BIN/kube-proxy" --config="$STATE/kube-proxy.yaml"

export KUBECONFIG=$KUBECONFIG_FILE
wait_for 120 "node $NODE" "$KUBECTL" wait --for=condition=Ready "node/$NODE" --timeout=2s
step "node $NODE Ready"

# --- cluster add-ons: CoreDNS and the default StorageClass
sed "s#@COREDNS_IMAGE@#$COREDNS_IMAGE#; s#@DNS_SERVICE_IP@#$DNS_SERVICE_IP#" "$ROOT/hack/cluster/coredns.yaml" | "$KUBECTL" apply -f - >/dev/null
"$ROOT/hack/cluster/local-path.sh" "$IMAGES" "$STATE/local-path" | "$KUBECTL" apply -f - >/dev/null
wait_for 60 "the default ServiceAccount" "$KUBECTL" get serviceaccount default
"$KUBECTL" -n kube-system rollout status deploy/coredns --timeout=180s >/dev/null
"$KUBECTL" -n local-path-storage rollout status deploy/local-path-provisioner --timeout=180s >/dev/null
step "CoreDNS and local-path-provisioner ready"

# --- metrics-server behind the aggregated metrics.k8s.io API (the API server's front-proxy flags
# above let it authenticate the requests kube-apiserver proxies to it); ready once it reports pods.
"$ROOT/hack/cluster/metrics-server.sh" "$IMAGES" "$P" | "$KUBECTL" apply -f - >/dev/null
"$KUBECTL" -n kube-system rollout status deploy/metrics-server --timeout=180s >/dev/null ||
  die "metrics-server not ready; see kubectl -n kube-system describe deploy/metrics-server and its logs"
pod_metrics() { "$KUBECTL" get --raw /apis/metrics.k8s.io/v1beta1/pods | grep -q '"containers":\[{'; }
wait_for 120 "metrics.k8s.io pod metrics (see kubectl get apiservice v1beta1.metrics.k8s.io; kubectl -n kube-system logs deploy/metrics-server)" pod_metrics
step "metrics-server ready (kubectl top); cluster up. export KUBECONFIG=$KUBECONFIG_FILE"
echo "$KUBECONFIG_FILE"
