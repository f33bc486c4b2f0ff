# Shared settings of the local cluster (sourced by up.sh, down.sh, node.sh, status.sh, install.sh).
#
# Several nodes on one machine: one control plane (etcd, kube-apiserver, controller-manager,
# scheduler) and one kube-proxy, and per node its own containerd (root, state, socket), kubelet
# (root dir, certificates, ports on its own IP), cgroup root, host-only bridge and pod CIDR. All
# share the machine's network namespace: node i is the bridge tpcc<i> at 10.244.<i>.1, its pods
# get 10.244.<i>.0/24, and the kernel routes between the bridges. Everything the cluster owns lives
# in $STATE (default ~/.cache/tpcc-operator/cluster), under /run/tpcc-cluster, in the cgroups
# /tpcc-node-<i> and on the bridges; never on the machine's own network interfaces.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${TPCC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tpcc-operator}
STATE=${TPCC_CLUSTER_DIR:-$CACHE/cluster}
RUN_DIR=/run/tpcc-cluster                 # containerd's state and sockets: short paths, tmpfs
K8S_VERSION=${K8S_VERSION:-1.34.4}        # 1.35+ kubelets refuse cgroup v1 hosts by default
# Nodes: node 0 runs the control plane beside its kubelet; 3 more give each of the 3 database
# instances of the reference configuration a machine of its own, the clients the 4th.
NODES=${TPCC_NODES:-4}
API_IP=10.244.0.1                         # node 0's bridge address: the API server's
CLUSTER_CIDR=10.244.0.0/16
SERVICE_CIDR=10.96.0.0/12
KUBERNETES_SERVICE_IP=10.96.0.1
DNS_SERVICE_IP=10.96.0.10
ETCD_PORT=12379                           # beside any etcd the tests start on 2379
KUBECONFIG_FILE=$STATE/admin.kubeconfig
CONTROL_PLANE=(etcd kube-apiserver kube-controller-manager kube-scheduler kube-proxy)
NODE_PROCESSES=(containerd kubelet)
# Sysctls the cluster sets, or that kubelet and kube-proxy set themselves: saved by up.sh, restored by down.sh.
SYSCTLS=(net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables net.bridge.bridge-nf-call-ip6tables
  net.ipv4.conf.all.route_localnet vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
  kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.netfilter.nf_conntrack_max
  net.netfilter.nf_conntrack_tcp_timeout_established net.netfilter.nf_conntrack_tcp_timeout_close_wait)
# Host folders that kubelet, containerd's shims and CNI use at fixed paths: removed by down.sh when
# up.sh found them absent.
FIXED_HOST_DIRS=(/var/log/containers /var/log/pods /var/lib/cni /run/containerd /run/netns /var/run/netns /etc/cni
  /usr/libexec/kubernetes)

# The Debian packages the local cluster needs that this machine lacks, one per line (up.sh installs
# them; .ci/run installs them up front, so hack/prebuild.sh can build the images beside make test).
cluster_missing_packages() {
  local tool
  for tool in containerd:containerd runc:runc iptables:iptables openssl:openssl; do
    command -v "${tool%%:*}" >/dev/null || echo "${tool#*:}"
  done
  [ -x /usr/lib/cni/bridge ] || echo containernetworking-plugins
  [ -x /bin/busybox ] || echo busybox-static
  command -v debootstrap >/dev/null || echo debootstrap
  command -v gcc >/dev/null && [ -f /usr/lib/x86_64-linux-gnu/libc.a ] || printf '%s\n' gcc libc6-dev   # fio, statically (hack/images.sh)
  command -v make >/dev/null || echo make
  command -v curl >/dev/null || echo curl
}

# The cluster's own services (CoreDNS, local-path-provisioner, metrics-server, CloudNativePG's and
# tpcc-operator's managers, Prometheus) run on node 0 beside the control plane, as on a real
# cluster's system nodes: losing a database node (node.sh) takes away only what the workload put
# there.
SYSTEM_NODE=tpcc-node-0

# Node i's name, bridge, address, pod CIDR, folders, containerd socket and cgroup.
node_name() { echo "tpcc-node-$1"; }
node_bridge() { echo "tpcc$1"; }
node_ip() { echo "10.244.$1.1"; }
node_cidr() { echo "10.244.$1.0/24"; }
node_dir() { echo "$STATE/nodes/$(node_name "$1")"; }
node_run() { echo "$RUN_DIR/$(node_name "$1")"; }
node_socket() { echo "$(node_run "$1")/containerd.sock"; }
node_cgroup() { echo "$(node_name "$1")"; } # under every cgroup v1 hierarchy: the node's "machine"
node_index() { # NAME: the index of a node name, or fail
  local i
  for i in $(seq 0 $((NODES - 1))); do [ "$(node_name "$i")" = "$1" ] && { echo "$i"; return 0; }; done
  return 1
}
# The cgroup v1 hierarchies (one folder per mounted controller set); kubelet needs its cgroup root
# in each of them.
cgroup_hierarchies() {
  local d
  for d in /sys/fs/cgroup/*/; do
    d=${d%/}
    [ -L "$d" ] && continue
    if grep -q " $d cgroup " /proc/mounts; then echo "$d"; fi
  done
  return 0
}

# node_hierarchies: the cgroup v1 hierarchies, or /sys/fs/cgroup itself on a cgroup v2 host.
node_hierarchies() {
  local h
  h=$(cgroup_hierarchies)
  if [ -n "$h" ]; then echo "$h"; else echo /sys/fs/cgroup; fi
  return 0
}
# node_daemon_cgroups I: the cgroups node i's containerd and kubelet run in (freezer and pids on
# v1, one leaf on v2); their children (containerd's shims) stay there, the containers go under
# kubepods beside it. node.sh freezes and kills the whole node cgroup.
node_daemon_cgroups() {
  local h
  for h in $(node_hierarchies); do
    case $h in */freezer | */pids | /sys/fs/cgroup) echo "$h/$(node_cgroup "$1")/node" ;; esac
  done
}
# launch_node I NAME: start node i's NAME (containerd or kubelet) with the arguments up.sh saved in
# node_dir/NAME.args (one per line), inside the node's daemon cgroups; remember its PID.
launch_node() {
  local i=$1 name=$2 args=() procs=() cg
  mapfile -t args < "$(node_dir "$i")/$name.args"
  for cg in $(node_daemon_cgroups "$i"); do procs+=("$cg/cgroup.procs"); done
  mkdir -p "$STATE/pids" "$STATE/logs"
  nohup bash -c 'for f in "${@:2:$1}"; do echo $$ > "$f"; done; shift $(($1 + 1)); exec "$@"' _ \
    "${#procs[@]}" "${procs[@]}" "${args[@]}" >> "$STATE/logs/$name-$(node_name "$i").log" 2>&1 &
  echo $! > "$STATE/pids/$name-$(node_name "$i")"
}

log() { echo "cluster: $*" >&2; }
die() { echo "cluster: $*" >&2; exit 1; }

k8s_bins() { "$ROOT/hack/k8s-bins.sh" etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl; }

pid_alive() { # NAME: is the process up.sh started still running?
  local f="$STATE/pids/$1"
  [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null
}

api_ready() { [ -f "$KUBECONFIG_FILE" ] && "$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" get --raw /readyz >/dev/null 2>&1; }

# ctr_node I ARGS...: ctr against node i's containerd, in Kubernetes' namespace.
ctr_node() { local i=$1; shift; command ctr --address "$(node_socket "$i")" -n k8s.io "$@"; }

# pin_system: a manifest filter putting each Deployment's pods (those with a serviceAccountName at
# pod-spec depth) on the system node.
pin_system() { sed -E "s#^(      serviceAccountName: .*)\$#\1\n      nodeSelector: {kubernetes.io/hostname: $SYSTEM_NODE}#"; }
