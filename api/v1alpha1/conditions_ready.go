package v1alpha1

// Condition types every BenchmarkRun and BenchmarkSuite carries from its first status write, beside
// the Job-like Complete and Failed (set once it ends) and the run's DatabaseReady, DataLoaded and
// SLACompliant:
//
//   - Ready follows CloudNativePG's convention (its Cluster's Ready condition): True once the object
//     Succeeded — its result is there to read — and False before that and on failure. Its reason is
//     the phase under way (Pending, Deploying, Loading, Running), Succeeded, or the failure's reason
//     (docs/troubleshooting.md), which `kubectl get -o wide` shows in the REASON column.
//   - Ended is True once the object Succeeded or Failed (reason Succeeded or the failure's reason),
//     False before: `kubectl wait --for=condition=Ended` returns on either outcome, where waiting for
//     Complete or Ready alone would wait forever for a run that failed.
const (
	ConditionReady = "Ready"
	ConditionEnded = "Ended"
)

// Reasons of Ready and Ended when the object succeeded.
const ReasonSucceeded = "Succeeded"
