# Shared settings of the local single-node cluster (sourced by up.sh, down.sh, status.sh).
#
# Everything the cluster owns lives in $STATE (default ~/.cache/tpcc-operator/cluster) or under
# /run/tpcc-cluster; the node talks on its own host-only bridge (tpcc0, 10.244.0.1), never on the
# machine's network interfaces.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${TPCC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tpcc-operator}
STATE=${TPCC_CLUSTER_DIR:-$CACHE/cluster}
RUN_DIR=/run/tpcc-cluster                 # containerd's state and socket: short paths, tmpfs
K8S_VERSION=${K8S_VERSION:-1.34.4}        # 1.35+ kubelets refuse cgroup v1 hosts by default
NODE=tpcc-node
BRIDGE=tpcc0
NODE_IP=10.244.0.1                        # the bridge's address: the node, the API server, the pods' gateway
NODE_POD_CIDR=10.244.0.0/24
CLUSTER_CIDR=10.244.0.0/16
SERVICE_CIDR=10.96.0.0/12
KUBERNETES_SERVICE_IP=10.96.0.1
DNS_SERVICE_IP=10.96.0.10
ETCD_PORT=12379                           # beside any etcd the tests start on 2379
KUBECONFIG_FILE=$STATE/admin.kubeconfig
CONTAINERD_SOCKET=$RUN_DIR/containerd.sock
PROCESSES=(etcd kube-apiserver kube-controller-manager kube-scheduler containerd kubelet kube-proxy)
# Sysctls the cluster sets, or that kubelet and kube-proxy set themselves: saved by up.sh, restored by down.sh.
SYSCTLS=(net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables net.bridge.bridge-nf-call-ip6tables
  net.ipv4.conf.all.route_localnet vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
  kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.netfilter.nf_conntrack_max
  net.netfilter.nf_conntrack_tcp_timeout_established net.netfilter.nf_conntrack_tcp_timeout_close_wait)
# Host folders that kubelet, containerd's shims and CNI use at fixed paths: removed by down.sh when
# up.sh found them absent.
FIXED_HOST_DIRS=(/var/log/containers /var/log/pods /var/lib/cni /run/containerd /run/netns /var/run/netns /etc/cni)

log() { echo "cluster: $*" >&2; }
die() { echo "cluster: $*" >&2; exit 1; }

k8s_bins() { "$ROOT/hack/k8s-bins.sh" etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl; }

pid_alive() { # NAME: is the process up.sh started still running?
  local f="$STATE/pids/$1"
  [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null
}

api_ready() { [ -f "$KUBECONFIG_FILE" ] && "$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" get --raw /readyz >/dev/null 2>&1; }
