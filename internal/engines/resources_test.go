package engines

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSameResources(t *testing.T) {
	q := resource.MustParse
	cases := []struct {
		name      string
		got, want corev1.ResourceRequirements
		same      bool
	}{
		{"equal", corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": q("100m")}}, corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": q("0.1")}}, true},
		{"a request defaulted from its limit", corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("100m")}, Limits: corev1.ResourceList{"cpu": q("100m")}},
			corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": q("100m")}}, true},
		{"another limit", corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": q("200m")}}, corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": q("100m")}}, false},
		{"a limit more", corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": q("100m"), "memory": q("1Gi")}},
			corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": q("100m")}}, false},
		{"no limit where one is wanted", corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("100m")}},
			corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("100m")}, Limits: corev1.ResourceList{"cpu": q("100m")}}, false},
	}
	for _, c := range cases {
		if got := SameResources(c.got, c.want); got != c.same {
			t.Errorf("%s: SameResources = %v, want %v", c.name, got, c.same)
		}
	}
}

func TestSwitchProgress(t *testing.T) {
	want := corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": resource.MustParse("100m")}}
	old := corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": resource.MustParse("100m")}}
	pod := func(name, container string, r corev1.ResourceRequirements, ready, deleting bool) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "bootstrap-controller"}, {Name: container, Resources: r}}}}
		if ready {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		}
		if deleting {
			p.DeletionTimestamp = &metav1.Time{}
		}
		return p
	}
	sw := ResourceSwitch{Container: "postgres", Want: want, Pods: 3}
	cases := []struct {
		name            string
		pods            []corev1.Pod
		switched, ready int
		done            bool
		mentions        []string
	}{
		{"none switched", []corev1.Pod{pod("db-1", "postgres", old, true, false), pod("db-2", "postgres", old, true, false), pod("db-3", "postgres", old, true, false)},
			0, 0, false, []string{"0/3 instances switched and ready", "db-1 (old resources)"}},
		{"one replaced, not ready; one being deleted", []corev1.Pod{pod("db-1", "postgres", old, true, false), pod("db-2", "postgres", want, false, false), pod("db-3", "postgres", old, true, true)},
			1, 0, false, []string{"0/3", "db-2 (not ready)", "db-3 (being replaced)"}},
		{"a pod without the container", []corev1.Pod{pod("db-1", "other", want, true, false), pod("db-2", "postgres", want, true, false), pod("db-3", "postgres", want, true, false)},
			2, 2, false, []string{"2/3", "db-1 (old resources)"}},
		{"two of three pods, both switched", []corev1.Pod{pod("db-1", "postgres", want, true, false), pod("db-2", "postgres", want, true, false)},
			2, 2, false, []string{"2/3 instances switched and ready"}},
		{"all switched and ready", []corev1.Pod{pod("db-1", "postgres", want, true, false), pod("db-2", "postgres", want, true, false), pod("db-3", "postgres", want, true, false)},
			3, 3, true, []string{"3/3 instances switched and ready"}},
	}
	for _, c := range cases {
		p := sw.Progress(c.pods)
		if p.Switched != c.switched || p.Ready != c.ready || p.Done(sw) != c.done {
			t.Errorf("%s: %+v (done %v), want %d switched, %d ready, done %v", c.name, p, p.Done(sw), c.switched, c.ready, c.done)
		}
		for _, m := range c.mentions {
			if !strings.Contains(p.Message, m) {
				t.Errorf("%s: message %q lacks %q", c.name, p.Message, m)
			}
		}
	}
}
