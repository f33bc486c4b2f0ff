#!/usr/bin/env bash
# Removes what README's install added, from the cluster of KUBECONFIG: every BenchmarkSuite and
# BenchmarkRun (and, through owner references, their databases, Jobs, report ConfigMaps), the Helm
# release tpcc-operator, the fault injector (hack/fault-injector.sh) where installed, the CRDs
# benchmarkruns, benchmarksuites and networkfaults.bench.oltp.io, and the namespace
# tpcc-operator-system. Optionally the database operators too.
#
# What it leaves unless told:
#   - databases runs kept (teardown: Retain): they are no run's any more; it lists them
#     (label app.kubernetes.io/managed-by=tpcc-operator) and deletes them with
#     UNINSTALL_RETAINED=1;
#   - the database operators: UNINSTALL_DB_OPERATORS=1 removes CloudNativePG (its release
#     manifest, CNPG_MANIFEST), cockroach-operator (COCKROACH_MANIFESTS) and the Helm release
#     ydb-operator, each only where installed;
#   - the results database (docs/results.md) and its Secret, which are yours: it never deletes
#     them. Removing an operator deletes its CRD and with it every database of that kind in the
#     cluster, the results database too when it is a CloudNativePG Cluster: with
#     UNINSTALL_DB_OPERATORS=1 it refuses (exit 3, nothing changed) while a database of a removed
#     operator's kind exists that no run made. To keep the results database, leave
#     UNINSTALL_DB_OPERATORS unset (the operator's own objects go, CloudNativePG stays), or dump
#     it first (kubectl exec into its primary: pg_dump) and set UNINSTALL_OTHER_DATABASES=1.
#
# usage: KUBECONFIG=... hack/uninstall.sh
# env:   DRY_RUN=1 prints each command instead of running it (the cluster is only read)
#        UNINSTALL_RETAINED=1, UNINSTALL_DB_OPERATORS=1, UNINSTALL_OTHER_DATABASES=1 (above)
#        RELEASE (tpcc-operator), NAMESPACE (tpcc-operator-system), KUBECTL, HELM
#        NAMESPACE_WAIT (true; false: return once the namespace's deletion has begun)
#        CNPG_MANIFEST (CloudNativePG 1.29.1's release manifest URL or file)
#        COCKROACH_MANIFESTS (cockroach-operator v2.18.3's operator.yaml and crds.yaml, space-separated)
set -euo pipefail

KUBECTL=${KUBECTL:-kubectl}
HELM=${HELM:-helm}
RELEASE=${RELEASE:-tpcc-operator}
NAMESPACE=${NAMESPACE:-tpcc-operator-system}
NAMESPACE_WAIT=${NAMESPACE_WAIT:-true}
CNPG_MANIFEST=${CNPG_MANIFEST:-https://raw.githubusercontent.com/cloudnative-pg/cloudnative-pg/v1.29.1/releases/cnpg-1.29.1.yaml}
COCKROACH_MANIFESTS=${COCKROACH_MANIFESTS:-https://raw.githubusercontent.com/cockroachdb/cockroach-operator/v2.18.3/install/operator.yaml https://raw.githubusercontent.com/cockroachdb/cockroach-operator/v2.18.3/install/crds.yaml}
OWN_CRDS=(benchmarkruns.bench.oltp.io benchmarksuites.bench.oltp.io networkfaults.bench.oltp.io)
# The database operators' kinds, by CRD: what removing each deletes.
CNPG_KINDS=clusters.postgresql.cnpg.io
COCKROACH_KINDS=crdbclusters.crdb.cockroachlabs.com
YDB_KINDS=storages.ydb.tech,databases.ydb.tech
MANAGED=app.kubernetes.io/managed-by=tpcc-operator

run() {
  if [[ ${DRY_RUN:-} == 1 ]]; then
    echo "would run: $*"
  else
    echo "+ $*"
    "$@"
  fi
}

served() { "$KUBECTL" get crd "$1" -o name >/dev/null 2>&1; }

# others KINDS: the databases of those kinds that no run made (no managed-by label), ns/name.
others() {
  "$KUBECTL" get "$1" -A -l "!app.kubernetes.io/managed-by" -o jsonpath='{range .items[*]}{.kind} {.metadata.namespace}/{.metadata.name}{"\n"}{end}' 2>/dev/null || true
}

retained_kinds() {
  local kinds=()
  served "$CNPG_KINDS" && kinds+=("$CNPG_KINDS")
  served "$COCKROACH_KINDS" && kinds+=("$COCKROACH_KINDS")
  served storages.ydb.tech && kinds+=("$YDB_KINDS")
  local IFS=,
  echo "${kinds[*]}"
}

# Refuse before changing anything.
if [[ ${UNINSTALL_DB_OPERATORS:-} == 1 && ${UNINSTALL_OTHER_DATABASES:-} != 1 ]]; then
  left=()
  served "$CNPG_KINDS" && left+=("$(others "$CNPG_KINDS")")
  served "$COCKROACH_KINDS" && left+=("$(others "$COCKROACH_KINDS")")
  served storages.ydb.tech && left+=("$(others "$YDB_KINDS")")
  listed=$(printf '%s\n' "${left[@]}" | sed '/^$/d')
  if [[ -n $listed ]]; then
    echo "refusing to remove the database operators: removing one deletes its CRD and every database of its kind, and these databases are no run's (your results database among them?):" >&2
    echo "$listed" | sed 's/^/  /' >&2
    echo "Nothing was changed. Keep the database operators (unset UNINSTALL_DB_OPERATORS), or dump these first and set UNINSTALL_OTHER_DATABASES=1." >&2
    exit 3
  fi
fi

# 1. Runs and suites, while the manager still runs: what they own goes with them.
if served "${OWN_CRDS[0]}"; then
  run "$KUBECTL" delete benchmarksuites,benchmarkruns --all --all-namespaces --wait
fi

# 2. Databases runs kept.
kinds=$(retained_kinds)
if [[ -n $kinds ]]; then
  kept=$("$KUBECTL" get "$kinds" -A -l "$MANAGED" -o jsonpath='{range .items[*]}{.kind} {.metadata.namespace}/{.metadata.name}{"\n"}{end}' 2>/dev/null || true)
  if [[ -n $kept ]]; then
    if [[ ${UNINSTALL_RETAINED:-} == 1 ]]; then
      run "$KUBECTL" delete "$kinds" -A -l "$MANAGED" --wait
    else
      echo "kept (teardown: Retain), left in place; UNINSTALL_RETAINED=1 deletes them:"
      echo "$kept" | sed 's/^/  /'
    fi
  fi
fi

# 3. The fault injector where it was installed (the runs are gone, so it has healed every network
# fault), then the operator: its release (the chart keeps the CRDs), its CRDs, its namespace.
if "$KUBECTL" get namespace tpcc-fault-injector -o name >/dev/null 2>&1; then
  run "$KUBECTL" delete namespace tpcc-fault-injector --wait="$NAMESPACE_WAIT"
  run "$KUBECTL" delete --ignore-not-found clusterrolebinding/tpcc-fault-injector clusterrole/tpcc-fault-injector
fi
if "$HELM" status "$RELEASE" --namespace "$NAMESPACE" >/dev/null 2>&1; then
  run "$HELM" uninstall "$RELEASE" --namespace "$NAMESPACE" --wait
fi
for crd in "${OWN_CRDS[@]}"; do
  served "$crd" && run "$KUBECTL" delete crd "$crd"
done
if "$KUBECTL" get namespace "$NAMESPACE" -o name >/dev/null 2>&1; then
  run "$KUBECTL" delete namespace "$NAMESPACE" --wait="$NAMESPACE_WAIT"
fi

# 4. The database operators, where installed.
if [[ ${UNINSTALL_DB_OPERATORS:-} == 1 ]]; then
  if served "$CNPG_KINDS"; then
    run "$KUBECTL" delete --ignore-not-found -f "$CNPG_MANIFEST"
  fi
  if served "$COCKROACH_KINDS"; then
    for m in $COCKROACH_MANIFESTS; do
      run "$KUBECTL" delete --ignore-not-found -f "$m"
    done
  fi
  if "$HELM" status ydb-operator >/dev/null 2>&1; then
    run "$HELM" uninstall ydb-operator --wait
  fi
  # The chart leaves its CRDs: every one of group ydb.tech.
  ydb_crds=$("$KUBECTL" get crd -o name 2>/dev/null | grep '\.ydb\.tech$' || true)
  if [[ -n $ydb_crds ]]; then
    # shellcheck disable=SC2086 # one argument per CRD
    run "$KUBECTL" delete --ignore-not-found $ydb_crds
  fi
fi
if [[ ${DRY_RUN:-} == 1 ]]; then
  echo "dry run: nothing was changed"
else
  echo "done"
fi
