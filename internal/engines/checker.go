package engines

import (
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/openapi"
	"k8s.io/client-go/rest"
	"k8s.io/kube-openapi/pkg/spec3"
)

// OperatorChecker checks database objects against what the API server serves: their kinds, and
// every field they set, from the served OpenAPI v3 documents (CheckObjects). Reading those
// needs no RBAC beyond what every authenticated user has (system:discovery).
type OperatorChecker struct {
	Discovery discovery.DiscoveryInterface
	OpenAPI   openapi.Client
}

// NewOperatorChecker reads the OpenAPI documents of the API server of cfg, uncached: an operator
// installed after the manager started is seen by the next run.
func NewOperatorChecker(cfg *rest.Config) (*OperatorChecker, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &OperatorChecker{Discovery: dc, OpenAPI: dc.OpenAPIV3()}, nil
}

// Check fetches the OpenAPI documents of the objects' group versions and checks the objects.
func (c *OperatorChecker) Check(objects []*unstructured.Unstructured) (Support, error) {
	paths, err := c.OpenAPI.Paths()
	if err != nil {
		return Support{}, fmt.Errorf("listing the served OpenAPI v3 documents: %w", err)
	}
	docs := map[schema.GroupVersion]*spec3.OpenAPI{}
	served := map[schema.GroupVersionKind]bool{}
	for _, gv := range GroupVersions(objects) {
		resources, err := c.Discovery.ServerResourcesForGroupVersion(gv.String())
		if apierrors.IsNotFound(err) {
			continue // the group version is not served
		}
		if err != nil {
			return Support{}, fmt.Errorf("discovering %s: %w", gv, err)
		}
		for _, r := range resources.APIResources {
			served[gv.WithKind(r.Kind)] = true
		}
		path := "apis/" + gv.Group + "/" + gv.Version
		if gv.Group == "" {
			path = "api/" + gv.Version
		}
		served, ok := paths[path]
		if !ok {
			continue // not published yet: CheckObjects reports its kinds unchecked
		}
		body, err := served.Schema("application/json")
		if err != nil {
			return Support{}, fmt.Errorf("reading the OpenAPI v3 document of %s: %w", gv, err)
		}
		doc := &spec3.OpenAPI{}
		if err := json.Unmarshal(body, doc); err != nil {
			return Support{}, fmt.Errorf("decoding the OpenAPI v3 document of %s: %w", gv, err)
		}
		docs[gv] = doc
	}
	return CheckObjects(func(gvk schema.GroupVersionKind) bool { return served[gvk] }, docs, objects), nil
}
