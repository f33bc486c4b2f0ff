package engines

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// ResourceSwitcher is a Backend whose runs can deploy and load their database under other compute
// resources than the steps measure it with (PostgreSQL's loadResources): Desired returns the load's
// resources until the run's data is loaded, the measured ones while the steps run, the load's again
// for the consistency check after the last step (UnderLoadResources), and the database's operator
// rolls its pods onto each.
type ResourceSwitcher interface {
	// ResourceSwitch says what the run switches to after its load; ok is false when it does not
	// switch (no load resources, or a reused database it does not load).
	ResourceSwitch(run *benchv1.BenchmarkRun) (sw ResourceSwitch, ok bool)
}

// ResourceSwitch is what a database's pods run with once switched.
type ResourceSwitch struct {
	// Container is the container of each database pod whose resources switch.
	Container string
	// Want are the resources it then runs with.
	Want corev1.ResourceRequirements
	// From are the resources it was deployed and loaded with.
	From corev1.ResourceRequirements
	// Pods is how many database pods there are.
	Pods int
}

// Back is the switch the other way: from the measured resources to those of the load, which the
// database runs with again for the consistency check after the run's last step.
func (sw ResourceSwitch) Back() ResourceSwitch {
	sw.Want, sw.From = sw.From, sw.Want
	return sw
}

// UnderLoadResources reports whether a database that switches resources (ResourceSwitcher) runs
// with the load's now: before its data is loaded, and once the run's steps are over and it was set
// back to them for the check after the last step (status.database.resourcesRestoreTime).
func UnderLoadResources(run *benchv1.BenchmarkRun) bool {
	return Loading(run) || (run.Status.Database != nil && run.Status.Database.ResourcesRestoreTime != nil)
}

// Loading reports whether the run has not loaded its data yet: it loads (no reuse) and its load
// has not completed.
func Loading(run *benchv1.BenchmarkRun) bool {
	return run.Spec.Database.Reuse == nil && (run.Status.Load == nil || run.Status.Load.CompletionTime == nil)
}

// SwitchProgress is how far the database's pods are from the switched resources.
type SwitchProgress struct {
	// Switched counts the pods (not being deleted) whose container runs with Want, and Ready those
	// of them that are ready.
	Switched, Ready int
	// Message says it for people: which pods still run with other resources or are not ready.
	Message string
}

// Done is whether every one of the sw.Pods pods runs with the switched resources and is ready.
func (p SwitchProgress) Done(sw ResourceSwitch) bool {
	return p.Switched == sw.Pods && p.Ready == sw.Pods
}

// Progress judges the database's pods against the switch.
func (sw ResourceSwitch) Progress(pods []corev1.Pod) SwitchProgress {
	var p SwitchProgress
	var waiting []string
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			waiting = append(waiting, pod.Name+" (being replaced)")
			continue
		}
		c := containerNamed(pod.Spec.Containers, sw.Container)
		if c == nil || !SameResources(c.Resources, sw.Want) {
			waiting = append(waiting, pod.Name+" (old resources)")
			continue
		}
		p.Switched++
		if !PodReady(&pod) {
			waiting = append(waiting, pod.Name+" (not ready)")
			continue
		}
		p.Ready++
	}
	p.Message = fmt.Sprintf("%d/%d instances switched and ready", p.Ready, sw.Pods)
	if len(waiting) > 0 {
		p.Message += fmt.Sprintf("; waiting for %v", waiting)
	}
	return p
}

func containerNamed(cs []corev1.Container, name string) *corev1.Container {
	for i := range cs {
		if cs[i].Name == name {
			return &cs[i]
		}
	}
	return nil
}

// PodReady is whether the pod's Ready condition is True.
func PodReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// SameResources compares a pod's container resources with the requirements it was created from,
// as the API server defaults them: a request left out takes its limit's value.
func SameResources(got, want corev1.ResourceRequirements) bool {
	return sameList(effectiveRequests(got), effectiveRequests(want)) && sameList(got.Limits, want.Limits)
}

func effectiveRequests(r corev1.ResourceRequirements) corev1.ResourceList {
	out := corev1.ResourceList{}
	for k, v := range r.Limits {
		out[k] = v
	}
	for k, v := range r.Requests {
		out[k] = v
	}
	return out
}

func sameList(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || v.Cmp(w) != 0 {
			return false
		}
	}
	return true
}

// VolumeSize is a storage block's volume size for a description (DatabasePodGroup.Storage); nil
// when it has none.
func VolumeSize(s benchv1.StorageSpec) *resource.Quantity {
	if s.Size.IsZero() {
		return nil
	}
	q := s.Size.DeepCopy()
	return &q
}
