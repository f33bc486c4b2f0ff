package report

// A chart whose every line reads zero shows nothing a sentence could not say: the report writes
// the sentence instead, with the reason when it is known.

// replayLagZeroReason is why every standby's replay lag can read zero: a lag is measured, and
// zero is a standby that had replayed all the WAL it received at every sample.
const replayLagZeroReason = "every standby had replayed all the WAL it had received at each sample"

// cgroupV1DiskReason is why the pods' disk reads zero while their network does not.
const cgroupV1DiskReason = "the kubelet reported the pods' network traffic but no disk traffic, as on nodes under cgroup v1, " +
	"whose kernel charges no pod for the writeback of buffered writes (the database's WAL and data files), so the kubelet has no disk figure to report (docs/equal-terms.md)"

// allZero says whether the lines have a point and every point of every line is zero.
func allZero(lines []line) bool {
	points := 0
	for _, l := range lines {
		for _, p := range l.Points {
			if p.Y != 0 {
				return false
			}
			points++
		}
	}
	return points > 0
}

// zeroSentence says what reads zero and, when known, why.
func zeroSentence(what, why string) string {
	if why == "" {
		return what + " reads zero throughout."
	}
	return what + " reads zero throughout: " + why + "."
}

// diskZeroReason is why a step's per-pod disk figures read zero when they do: the cgroup v1
// reason when the kubelet reported the same pods' network (it answered, and counted that);
// else unknown ("").
func diskZeroReason(network []line) string {
	if len(network) > 0 && !allZero(network) {
		return cgroupV1DiskReason
	}
	return ""
}

// chartOrZero writes the chart of the lines, or the sentence that what they show reads zero.
func chartOrZero(p *page, lines []line, what, why string, render func([]line) string) {
	if allZero(lines) {
		p.para(zeroSentence(what, why))
		return
	}
	p.raw(render(lines) + "\n")
}
