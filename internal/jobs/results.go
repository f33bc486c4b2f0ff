package jobs

import (
	"path"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/outbox"
)

// ComponentResults labels the results writer Jobs.
const ComponentResults = "results-writer"

// Where the results writer finds its input: the record and step files, and the Secret's key.
const (
	ResultsInputDir  = "/var/run/tpcc/record"
	ResultsSecretDir = "/var/run/tpcc/results"
	resultsURIFile   = "uri"
)

// ResultsWriterDeadline bounds a writer Job: a database that does not answer within it makes the
// write fail, and the operator tries again later.
const ResultsWriterDeadline int64 = 300

// ResultsWriterJob writes one record into the results database (docs/results.md): `tpcc results
// write` reads the record and the step files from the ConfigMaps in sources, mounted read-only at
// ResultsInputDir (absent ones optional: the writer writes NULL for them), and the database's URI
// from the Secret's key, mounted into this pod only (never an environment variable, never an
// argument). One pod, no retry within the Job (the operator retries with backoff), no service
// account token: it talks to the database, never to the API server. It reports through its
// termination message (outbox.WriterReport).
func ResultsWriterJob(namespace, name string, labels map[string]string, secret benchv1.SecretKeyRef, sources []outbox.Source, cfg Config) *batchv1.Job {
	labels = copyLabels(labels)
	labels[ComponentLabel] = ComponentResults
	podLabels := copyLabels(labels)
	key := secret.Key
	if key == "" {
		key = "uri"
	}
	projected := &corev1.ProjectedVolumeSource{DefaultMode: ptr(int32(0o444))}
	for _, s := range sources {
		cm := &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: s.ConfigMap}, Optional: ptr(true)}
		for _, item := range s.Items {
			cm.Items = append(cm.Items, corev1.KeyToPath{Key: item.Key, Path: item.Path})
		}
		projected.Sources = append(projected.Sources, corev1.VolumeProjection{ConfigMap: cm})
	}
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			BackoffLimit:          ptr(int32(0)),
			ActiveDeadlineSeconds: ptr(ResultsWriterDeadline),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{
					RestartPolicy:                corev1.RestartPolicyNever,
					AutomountServiceAccountToken: ptr(false),
					EnableServiceLinks:           ptr(false),
					SecurityContext:              podSecurityContext(),
					Volumes: []corev1.Volume{
						{Name: "record", VolumeSource: corev1.VolumeSource{Projected: projected}},
						{Name: "results-secret", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
							SecretName: secret.Name, DefaultMode: ptr(int32(0o440)),
							Items: []corev1.KeyToPath{{Key: key, Path: resultsURIFile}},
						}}},
					},
					Containers: []corev1.Container{{
						Name:            "writer",
						Image:           cfg.ClientImage,
						ImagePullPolicy: cfg.ImagePullPolicy,
						Args: []string{"results", "write", "--input", ResultsInputDir,
							"--url-file", path.Join(ResultsSecretDir, resultsURIFile), "--termination-log", outbox.TerminationLog},
						VolumeMounts: []corev1.VolumeMount{
							{Name: "record", MountPath: ResultsInputDir, ReadOnly: true},
							{Name: "results-secret", MountPath: ResultsSecretDir, ReadOnly: true},
						},
						TerminationMessagePath:   outbox.TerminationLog,
						TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
							Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
						},
						SecurityContext: containerSecurityContext(),
					}},
				},
			},
		},
	}
}

func copyLabels(in map[string]string) map[string]string {
	out := make(map[string]string, len(in)+1)
	for k, v := range in {
		out[k] = v
	}
	return out
}
