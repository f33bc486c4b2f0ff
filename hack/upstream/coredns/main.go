// CoreDNS with the plugins of hack/cluster/coredns.yaml's Corefile and no others: CoreDNS's own way
// to a smaller build (its plugin.cfg), here a main that imports them. The full build compiles every
// cloud provider's SDK for its route53, azure and clouddns plugins (223 s on the 2-core machine,
// cold). hack/cluster/manifests_test.go keeps these imports and the Corefile's directives alike.
package main

import (
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"

	"github.com/coredns/coredns/coremain"
)

func main() { coremain.Run() }
