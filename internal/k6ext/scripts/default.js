// The default script of `tpcc run`: one VU, one iteration, inside which the TPC-C terminals of
// this process run as goroutines for the ramp-up and the measured interval. `tpcc run` prepares
// the session (connection, warehouse range, waits, durations) and sets TPCC_MAX_DURATION.
import tpcc from 'k6/x/tpcc';

export const options = {
  scenarios: {
    tpcc: {
      executor: 'per-vu-iterations',
      vus: 1,
      iterations: 1,
      maxDuration: __ENV.TPCC_MAX_DURATION || '24h',
      gracefulStop: '30s',
    },
  },
};

export default function () {
  tpcc.run();
}
