package run

import (
	"context"
	"runtime/debug"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// +kubebuilder:rbac:groups="",resources=nodes,verbs=get
// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=list
// +kubebuilder:rbac:groups=storage.k8s.io,resources=storageclasses,verbs=get

// recordEnvironment reads, once per run, what its figures are measured on: the server (from the
// client pod that samples the database), the nodes, storage and images of the run's pods. It
// waits for the sampling pod's first snapshot that describes the server.
func (r *Reconciler) recordEnvironment(ctx context.Context, run *benchv1.BenchmarkRun, snapshots []*snapshot.Snapshot) error {
	if env := run.Status.Environment; env != nil && env.OperatorVersion != "" {
		return nil // read already (an environment with only the storage calibration is not)
	}
	var server *snapshot.Snapshot
	for _, s := range snapshots {
		if s.Server != nil {
			server = s
		}
	}
	if server == nil {
		return nil
	}
	env := benchv1.RunEnvironment{ReadAt: metav1.Now(), ServerVersion: server.Versions.EngineServer, Settings: server.Server.Settings,
		ClientVersion: server.Versions.Client, OperatorVersion: OperatorVersion(), Images: map[string]string{}}
	if tuner, ok := r.backend(run).(engines.Tuner); ok {
		env.Tuning = engines.TuningRecord(tuner.Tuning(run), server.Server.Settings, server.Server.SettingsError)
	}
	var dbPods []corev1.Pod
	if sel := r.backend(run).DatabasePods(run); sel != nil {
		list := &corev1.PodList{}
		if err := r.APIReader.List(ctx, list, client.InNamespace(run.Namespace), client.MatchingLabels(sel)); err != nil {
			return err
		}
		dbPods = list.Items
		claims := &corev1.PersistentVolumeClaimList{}
		if err := r.APIReader.List(ctx, claims, client.InNamespace(run.Namespace), client.MatchingLabels(sel)); err != nil {
			return err
		}
		for _, c := range claims.Items {
			if c.Spec.StorageClassName != nil && *c.Spec.StorageClassName != "" {
				env.StorageClass = *c.Spec.StorageClassName
				break
			}
		}
		if env.StorageClass != "" {
			sc := &storagev1.StorageClass{}
			if err := r.APIReader.Get(ctx, client.ObjectKey{Name: env.StorageClass}, sc); err == nil {
				env.StorageProvisioner = sc.Provisioner
			}
		}
	}
	nodes := map[string]bool{}
	for _, p := range dbPods {
		env.Images[p.Name] = podImages(p)
		if p.Spec.NodeName != "" {
			nodes[p.Spec.NodeName] = true
		}
	}
	env.Images["client"] = r.Config.Jobs.ClientImage
	names := make([]string, 0, len(nodes))
	for n := range nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		node := &corev1.Node{}
		if err := r.APIReader.Get(ctx, client.ObjectKey{Name: name}, node); err != nil {
			env.Nodes = append(env.Nodes, benchv1.NodeEnvironment{Name: name})
			continue
		}
		env.Nodes = append(env.Nodes, nodeEnvironment(node, pricingLabel(run)))
	}
	return r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
		if s.Environment == nil || s.Environment.OperatorVersion == "" {
			if s.Environment != nil {
				env.StorageCalibration = s.Environment.StorageCalibration
			}
			s.Environment = &env
		}
	})
}

// pricingLabel is the node label the run's pricing reads; "" without spec.pricing.nodeHour.
func pricingLabel(run *benchv1.BenchmarkRun) string {
	if p := run.Spec.Pricing; p != nil && len(p.NodeHour) > 0 {
		return p.EffectiveNodeLabel()
	}
	return ""
}

// nodeEnvironment is what a node's status says of it, with its label named label when it has one
// (label "": none); it is pure.
func nodeEnvironment(node *corev1.Node, label string) benchv1.NodeEnvironment {
	info := node.Status.NodeInfo
	n := benchv1.NodeEnvironment{Name: node.Name, KernelVersion: info.KernelVersion, OSImage: info.OSImage,
		ContainerRuntimeVersion: info.ContainerRuntimeVersion, KubeletVersion: info.KubeletVersion, Architecture: info.Architecture}
	if q, ok := node.Status.Capacity[corev1.ResourceCPU]; ok {
		n.CPU = &q
	}
	if q, ok := node.Status.Capacity[corev1.ResourceMemory]; ok {
		n.Memory = &q
	}
	if v, ok := node.Labels[label]; ok && label != "" {
		n.Labels = map[string]string{label: v}
	}
	return n
}

func podImages(p corev1.Pod) string {
	images := make([]string, 0, len(p.Spec.Containers))
	for _, c := range p.Spec.Containers {
		images = append(images, c.Image)
	}
	return strings.Join(images, ",")
}

// OperatorVersion is the manager's module version and VCS revision, as the Go toolchain recorded them.
func OperatorVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	version := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			version += " " + s.Value[:12]
		}
		if s.Key == "vcs.modified" && s.Value == "true" {
			version += " (modified)"
		}
	}
	return version
}
