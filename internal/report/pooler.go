package report

import benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"

// PoolerSentence is a run report's line on the connection pooler its steps' clients went through;
// "" when they connected to the database directly.
func PoolerSentence(db benchv1.DatabaseDescription) string {
	if db.Pooler == "" {
		return ""
	}
	return "Connections: the steps' clients reached the database " + db.Pooler +
		"; the loaders and the checks connected directly. The pooler adds a hop to every transaction and caps the server connections."
}
