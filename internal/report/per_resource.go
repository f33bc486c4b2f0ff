package report

import (
	"math"

	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// PerResourceOf divides a result's tpmC by its database's CPU and memory on three bases: the
// database pods' requests and limits as its engine describes them (every pod of the database, as
// deployed), and the sum of each database pod's peak use during the result step (status
// telemetry; a sum of peaks, so an upper bound of the pods' use at any one moment). A basis whose
// denominator is unknown (no request, no limit, no resource metrics, an external database) is
// absent; a result without a compliant step has none.
func PerResourceOf(db benchv1.DatabaseDescription, tpmC float64, step *benchv1.StepResult) []benchv1.PerResource {
	if tpmC <= 0 {
		return nil
	}
	var out []benchv1.PerResource
	add := func(basis benchv1.ResourceBasis, cpu, memory *resource.Quantity) {
		p := benchv1.PerResource{Basis: basis, CPU: cpu, Memory: memory}
		if cpu != nil && cpu.MilliValue() > 0 {
			p.TpmCPerVCPU = ptrFloat(round3(tpmC / (float64(cpu.MilliValue()) / 1000)))
		}
		if memory != nil && memory.Value() > 0 {
			p.TpmCPerGiB = ptrFloat(round3(tpmC / (float64(memory.Value()) / (1 << 30))))
		}
		if p.TpmCPerVCPU != nil || p.TpmCPerGiB != nil {
			out = append(out, p)
		}
	}
	req, lim := ResourcesOf(db), LimitsOf(db)
	add(benchv1.BasisRequests, req.CPU, req.Memory)
	add(benchv1.BasisLimits, lim.CPU, lim.Memory)
	if step != nil && step.Telemetry != nil {
		var cpuMilli, memBytes int64
		n := 0
		for _, p := range step.Telemetry.Pods {
			if p.Role != "Database" {
				continue
			}
			n++
			cpuMilli += p.PeakCPU.MilliValue()
			memBytes += p.PeakMemory.Value()
		}
		if n > 0 {
			add(benchv1.BasisPeak, resource.NewMilliQuantity(cpuMilli, resource.DecimalSI), resource.NewQuantity(memBytes, resource.BinarySI))
		}
	}
	return out
}

func ptrFloat(v float64) *float64 { return &v }

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
