package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
)

// Price is an amount of the pricing's currency: a decimal string, zero or more ("0.048"), read
// exactly (never through a float).
// +kubebuilder:validation:Pattern=`^[0-9]{1,12}(\.[0-9]{1,12})?$`
// +kubebuilder:validation:MaxLength=25
type Price string

// PricingSpec is what the user pays for the database's resources, to price the system under test
// the way TPC prices it: every database pod (standbys, replicas, storage and compute nodes
// included) at its requests, else its limits, or, with nodeHour, the nodes the database's pods
// occupy; and its volumes. Client, loader and operator pods are not priced. The prices are the
// user's, not quoted, and the figure is TPC-C-derived, not a TPC price/performance result
// (docs/price-performance.md).
// +kubebuilder:validation:XValidation:rule="has(self.vCPUHour) || has(self.memoryGiBHour) || has(self.nodeHour)",message="pricing: give vCPUHour, memoryGiBHour or nodeHour"
type PricingSpec struct {
	// Currency the prices are in: an ISO 4217 code such as USD or EUR.
	// +kubebuilder:validation:Pattern=`^[A-Z]{3}$`
	Currency string `json:"currency"`

	// VCPUHour is the price of one vCPU for an hour.
	// +optional
	VCPUHour Price `json:"vCPUHour,omitempty"`

	// MemoryGiBHour is the price of one GiB of memory for an hour.
	// +optional
	MemoryGiBHour Price `json:"memoryGiBHour,omitempty"`

	// StorageGiBMonth is the price of one GiB of the database's volumes for a month.
	// +optional
	StorageGiBMonth Price `json:"storageGiBMonth,omitempty"`

	// NodeHour prices a node for an hour by the value of its label nodeLabel (e.g. an instance
	// type: {m6i.2xlarge: "0.384"}). When set, the database is priced by the nodes its pods ran
	// on (status.environment.nodes), for placements that dedicate nodes to the database; its
	// volumes are priced beside them.
	// +kubebuilder:validation:MaxProperties=64
	// +optional
	NodeHour map[string]Price `json:"nodeHour,omitempty"`

	// NodeLabel is the node label whose value nodeHour is keyed by.
	// +kubebuilder:default="node.kubernetes.io/instance-type"
	// +kubebuilder:validation:MaxLength=253
	// +optional
	NodeLabel string `json:"nodeLabel,omitempty"`
}

// EffectiveNodeLabel is nodeLabel, or its default when it is empty.
func (p *PricingSpec) EffectiveNodeLabel() string {
	if p == nil || p.NodeLabel == "" {
		return DefaultPricingNodeLabel
	}
	return p.NodeLabel
}

// DefaultPricingNodeLabel is the node label nodeHour is keyed by when nodeLabel is empty.
const DefaultPricingNodeLabel = "node.kubernetes.io/instance-type"

// PricingRule is what a database pod is priced at.
// +kubebuilder:validation:Enum=Requests;Limits;DedicatedNodes
type PricingRule string

const (
	// PricingRequests: each pod's CPU and memory requests.
	PricingRequests PricingRule = "Requests"
	// PricingLimits: each pod's CPU and memory limits (a pod group declares no requests).
	PricingLimits PricingRule = "Limits"
	// PricingDedicatedNodes: the nodes the database's pods ran on, at spec.pricing.nodeHour.
	PricingDedicatedNodes PricingRule = "DedicatedNodes"
)

// HoursPerMonth and MonthsPerTerm are the month and the term price-performance uses: 730 hours
// (8760 / 12), and 3 years as TPC's pricing does.
const (
	HoursPerMonth = 730
	MonthsPerTerm = 36
)

// PricePerformance is the monthly cost of the database as spec.pricing prices it and what it
// costs per tpmC. Absent figures could not be computed; NotPriced then says why.
type PricePerformance struct {
	// Currency of every amount.
	Currency string `json:"currency"`
	// Rule is what the database pods were priced at; absent when they were not priced.
	// +optional
	Rule PricingRule `json:"rule,omitempty"`
	// NotPriced says why no monthly cost is given (no resources declared, an external database,
	// a node without a price).
	// +optional
	NotPriced string `json:"notPriced,omitempty"`
	// Items are what was priced: each database pod group, or each node, and the volumes.
	// +listType=atomic
	// +optional
	Items []PricedItem `json:"items,omitempty"`
	// MonthlyCost is what the database costs for a month (730 hours).
	// +optional
	MonthlyCost *float64 `json:"monthlyCost,omitempty"`
	// CostPerTpmCMonth is monthlyCost divided by the result's tpmC.
	// +optional
	CostPerTpmCMonth *float64 `json:"costPerTpmCMonth,omitempty"`
	// CostPerTpmC3Years is the cost of 36 months divided by the result's tpmC, as TPC's pricing
	// states it over a 3-year term.
	// +optional
	CostPerTpmC3Years *float64 `json:"costPerTpmC3Years,omitempty"`
	// TpmCPerCurrency is the result's tpmC per unit of currency paid a month.
	// +optional
	TpmCPerCurrency *float64 `json:"tpmCPerCurrency,omitempty"`
	// Unpriced names what the price leaves out: the client, loader and operator pods.
	// +listType=atomic
	// +optional
	Unpriced []string `json:"unpriced,omitempty"`
	// Caveats say where the price overstates the database's share: nodes priced as dedicated that
	// also ran client pods.
	// +listType=atomic
	// +optional
	Caveats []string `json:"caveats,omitempty"`
}

// PricedItem is one line of a price: a database pod group, a node or the volumes.
type PricedItem struct {
	// What is priced: "3 × instance", "node db-1 (m6i.2xlarge)", "volumes".
	What string `json:"what"`
	// VCPU, Memory and Storage are the resources priced (all pods of the line together).
	// +optional
	VCPU *resource.Quantity `json:"vCPU,omitempty"`
	// +optional
	Memory *resource.Quantity `json:"memory,omitempty"`
	// +optional
	Storage *resource.Quantity `json:"storage,omitempty"`
	// MonthlyCost of the line.
	MonthlyCost float64 `json:"monthlyCost"`
}
