// csi-local is a CSI driver with VolumeSnapshots for the local cluster (hack/cluster), the
// storage issue 23's snapshot restore needs to be shown on: volumes are directories of the machine,
// VOLUMES/NODE/VOLUME, bind-mounted into pods; a snapshot is a copy under VOLUMES/snapshots/ID; a
// claim whose dataSource is a VolumeSnapshot is provisioned as a copy of it.
//
//	node mode:       the kubelet's plugin registration (PLUGINS_REGISTRY/lcsi.sock), the identity and
//	                 node services (publish: a bind mount) on /run/tpcc-csi/NODE.sock
//	controller mode: the identity and controller services (CreateSnapshot, DeleteSnapshot) for the
//	                 upstream csi-snapshotter, and a provisioner on sig-storage-lib-external-provisioner
//
// A separate module (its dependencies stay out of the operator's build list), started on a running
// local cluster by hack/cluster/snapshots.sh — one node plugin per node, registered with its
// kubelet, and the controller with the upstream snapshot-controller and csi-snapshotter
// (kubernetes-csi/external-snapshotter v8.7.0, built from the Go module proxy in a throwaway module
// that points external-snapshotter/client/v8 at its published v8.7.0; its CRDs come from that
// module's config/crd) — and stopped by hack/cluster/down.sh. The e2e case TestSnapshotRestore
// uses it (docs/reuse.md). By hand, with manifests/ (IMAGE: localhost/busybox:debian):
//
//	hack/cluster/snapshots.sh
//	kubectl apply -f manifests/write.yaml; then snap.yaml, restore.yaml in namespace snaptest
//
// Unix socket paths are limited to 108 bytes, and the local kubelets' root directories are deep:
// hence the short registration socket name and the CSI endpoints under /run/tpcc-csi.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/timestamppb"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v11/controller"
)

const driver = "local.csi.tpcc-operator.io"
const topologyKey = "topology.local.csi.tpcc-operator.io/node"

var (
	mode       = flag.String("mode", "node", "node or controller")
	node       = flag.String("node", "", "node name (node mode)")
	kubelet    = flag.String("kubelet-root", "", "kubelet root dir (node mode)")
	volumes    = flag.String("volumes", "", "volume root: VOLUMES/NODE/VOLUME, VOLUMES/snapshots/ID")
	endpoint   = flag.String("endpoint", "", "controller endpoint (unix socket path)")
	kubeconfig = flag.String("kubeconfig", "", "kubeconfig (controller mode: the provisioner)")
)

func listen(path string) net.Listener {
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	_ = os.Remove(path)
	l, err := net.Listen("unix", path)
	if err != nil {
		log.Fatal(err)
	}
	return l
}

type identity struct {
	csi.UnimplementedIdentityServer
	controller bool
}

func (identity) GetPluginInfo(context.Context, *csi.GetPluginInfoRequest) (*csi.GetPluginInfoResponse, error) {
	return &csi.GetPluginInfoResponse{Name: driver, VendorVersion: "0.1.0"}, nil
}
func (i identity) GetPluginCapabilities(context.Context, *csi.GetPluginCapabilitiesRequest) (*csi.GetPluginCapabilitiesResponse, error) {
	caps := []*csi.PluginCapability{{Type: &csi.PluginCapability_Service_{Service: &csi.PluginCapability_Service{Type: csi.PluginCapability_Service_VOLUME_ACCESSIBILITY_CONSTRAINTS}}}}
	if i.controller {
		caps = append(caps, &csi.PluginCapability{Type: &csi.PluginCapability_Service_{Service: &csi.PluginCapability_Service{Type: csi.PluginCapability_Service_CONTROLLER_SERVICE}}})
	}
	return &csi.GetPluginCapabilitiesResponse{Capabilities: caps}, nil
}
func (identity) Probe(context.Context, *csi.ProbeRequest) (*csi.ProbeResponse, error) {
	return &csi.ProbeResponse{}, nil
}

type nodeServer struct {
	csi.UnimplementedNodeServer
}

func (nodeServer) NodeGetInfo(context.Context, *csi.NodeGetInfoRequest) (*csi.NodeGetInfoResponse, error) {
	return &csi.NodeGetInfoResponse{NodeId: *node, AccessibleTopology: &csi.Topology{Segments: map[string]string{topologyKey: *node}}}, nil
}
func (nodeServer) NodeGetCapabilities(context.Context, *csi.NodeGetCapabilitiesRequest) (*csi.NodeGetCapabilitiesResponse, error) {
	return &csi.NodeGetCapabilitiesResponse{}, nil
}

// volumeDir maps a volume handle NODE/NAME to its directory.
func volumeDir(handle string) (string, error) {
	n, name, ok := strings.Cut(handle, "/")
	if !ok || n == "" || name == "" || strings.Contains(name, "/") || strings.Contains(name, "..") {
		return "", fmt.Errorf("volume handle %q: want NODE/NAME", handle)
	}
	return filepath.Join(*volumes, n, name), nil
}

func (nodeServer) NodePublishVolume(_ context.Context, r *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error) {
	src, err := volumeDir(r.VolumeId)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(r.TargetPath, 0o750); err != nil {
		return nil, err
	}
	if mounted(r.TargetPath) {
		return &csi.NodePublishVolumeResponse{}, nil
	}
	if err := syscall.Mount(src, r.TargetPath, "", syscall.MS_BIND, ""); err != nil {
		return nil, fmt.Errorf("bind %s on %s: %w", src, r.TargetPath, err)
	}
	log.Printf("published %s on %s", src, r.TargetPath)
	return &csi.NodePublishVolumeResponse{}, nil
}

func mounted(path string) bool {
	b, _ := os.ReadFile("/proc/self/mountinfo")
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && f[4] == path {
			return true
		}
	}
	return false
}

func (nodeServer) NodeUnpublishVolume(_ context.Context, r *csi.NodeUnpublishVolumeRequest) (*csi.NodeUnpublishVolumeResponse, error) {
	if mounted(r.TargetPath) {
		if err := syscall.Unmount(r.TargetPath, 0); err != nil {
			return nil, err
		}
	}
	_ = os.Remove(r.TargetPath)
	return &csi.NodeUnpublishVolumeResponse{}, nil
}

type registration struct {
	registerapi.UnimplementedRegistrationServer
	csiEndpoint string
}

func (g registration) GetInfo(context.Context, *registerapi.InfoRequest) (*registerapi.PluginInfo, error) {
	return &registerapi.PluginInfo{Type: registerapi.CSIPlugin, Name: driver, Endpoint: g.csiEndpoint, SupportedVersions: []string{"1.0.0"}}, nil
}
func (registration) NotifyRegistrationStatus(_ context.Context, s *registerapi.RegistrationStatus) (*registerapi.RegistrationStatusResponse, error) {
	log.Printf("registration: registered %v, error %q", s.PluginRegistered, s.Error)
	return &registerapi.RegistrationStatusResponse{}, nil
}

type controllerServer struct {
	csi.UnimplementedControllerServer
}

func (controllerServer) ControllerGetCapabilities(context.Context, *csi.ControllerGetCapabilitiesRequest) (*csi.ControllerGetCapabilitiesResponse, error) {
	return &csi.ControllerGetCapabilitiesResponse{Capabilities: []*csi.ControllerServiceCapability{
		{Type: &csi.ControllerServiceCapability_Rpc{Rpc: &csi.ControllerServiceCapability_RPC{Type: csi.ControllerServiceCapability_RPC_CREATE_DELETE_SNAPSHOT}}},
	}}, nil
}

func (controllerServer) CreateSnapshot(_ context.Context, r *csi.CreateSnapshotRequest) (*csi.CreateSnapshotResponse, error) {
	src, err := volumeDir(r.SourceVolumeId)
	if err != nil {
		return nil, err
	}
	dst := filepath.Join(*volumes, "snapshots", r.Name)
	if _, err := os.Stat(dst); err != nil {
		tmp := dst + ".tmp"
		_ = os.RemoveAll(tmp)
		_ = os.MkdirAll(filepath.Dir(dst), 0o755)
		if out, err := exec.Command("cp", "-a", src, tmp).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("copying %s: %v: %s", src, err, out)
		}
		if err := os.Rename(tmp, dst); err != nil {
			return nil, err
		}
	}
	size, _ := dirSize(dst)
	log.Printf("snapshot %s of %s: %d bytes", r.Name, r.SourceVolumeId, size)
	return &csi.CreateSnapshotResponse{Snapshot: &csi.Snapshot{SnapshotId: r.Name, SourceVolumeId: r.SourceVolumeId,
		SizeBytes: size, CreationTime: timestamppb.Now(), ReadyToUse: true}}, nil
}

func (controllerServer) DeleteSnapshot(_ context.Context, r *csi.DeleteSnapshotRequest) (*csi.DeleteSnapshotResponse, error) {
	if r.SnapshotId == "" || strings.Contains(r.SnapshotId, "/") {
		return nil, fmt.Errorf("snapshot id %q", r.SnapshotId)
	}
	return &csi.DeleteSnapshotResponse{}, os.RemoveAll(filepath.Join(*volumes, "snapshots", r.SnapshotId))
}

func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
		return nil
	})
	return n, err
}

// provisioner creates NODE/PV directories on the selected node, filled from a VolumeSnapshot when
// the claim names one.
type provisioner struct {
	dyn dynamic.Interface
}

var (
	snapshotGVR = schema.GroupVersionResource{Group: "snapshot.storage.k8s.io", Version: "v1", Resource: "volumesnapshots"}
	contentGVR  = schema.GroupVersionResource{Group: "snapshot.storage.k8s.io", Version: "v1", Resource: "volumesnapshotcontents"}
)

func (p provisioner) Provision(ctx context.Context, o controller.ProvisionOptions) (*v1.PersistentVolume, controller.ProvisioningState, error) {
	if o.SelectedNode == nil {
		return nil, controller.ProvisioningFinished, fmt.Errorf("no selected node: the StorageClass must bind WaitForFirstConsumer")
	}
	handle := o.SelectedNode.Name + "/" + o.PVName
	dir, err := volumeDir(handle)
	if err != nil {
		return nil, controller.ProvisioningFinished, err
	}
	if ds := o.PVC.Spec.DataSource; ds != nil {
		if ds.Kind != "VolumeSnapshot" {
			return nil, controller.ProvisioningFinished, fmt.Errorf("data source kind %s: only VolumeSnapshot", ds.Kind)
		}
		snap, err := p.dyn.Resource(snapshotGVR).Namespace(o.PVC.Namespace).Get(ctx, ds.Name, metav1.GetOptions{})
		if err != nil {
			return nil, controller.ProvisioningFinished, err
		}
		contentName, _, _ := unstructuredString(snap.Object, "status", "boundVolumeSnapshotContentName")
		content, err := p.dyn.Resource(contentGVR).Get(ctx, contentName, metav1.GetOptions{})
		if err != nil {
			return nil, controller.ProvisioningInBackground, fmt.Errorf("snapshot %s not bound yet: %w", ds.Name, err)
		}
		id, _, _ := unstructuredString(content.Object, "status", "snapshotHandle")
		if id == "" {
			return nil, controller.ProvisioningInBackground, fmt.Errorf("snapshot %s has no handle yet", ds.Name)
		}
		_ = os.MkdirAll(filepath.Dir(dir), 0o755)
		if out, err := exec.Command("cp", "-a", filepath.Join(*volumes, "snapshots", id), dir).CombinedOutput(); err != nil {
			return nil, controller.ProvisioningFinished, fmt.Errorf("restoring %s: %v: %s", id, err, out)
		}
		log.Printf("provisioned %s from snapshot %s", handle, id)
	} else if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, controller.ProvisioningFinished, err
	}
	_ = os.Chmod(dir, 0o777)
	capacity := o.PVC.Spec.Resources.Requests[v1.ResourceStorage]
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: o.PVName},
		Spec: v1.PersistentVolumeSpec{
			PersistentVolumeReclaimPolicy: *o.StorageClass.ReclaimPolicy,
			AccessModes:                   o.PVC.Spec.AccessModes,
			VolumeMode:                    o.PVC.Spec.VolumeMode,
			Capacity:                      v1.ResourceList{v1.ResourceStorage: capacity},
			PersistentVolumeSource:        v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: handle}},
			NodeAffinity: &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: topologyKey, Operator: v1.NodeSelectorOpIn, Values: []string{o.SelectedNode.Name}}}}}}},
		},
	}, controller.ProvisioningFinished, nil
}

func (p provisioner) Delete(_ context.Context, pv *v1.PersistentVolume) error {
	if pv.Spec.CSI == nil {
		return fmt.Errorf("PV %s is not ours", pv.Name)
	}
	dir, err := volumeDir(pv.Spec.CSI.VolumeHandle)
	if err != nil {
		return err
	}
	return os.RemoveAll(dir)
}

func unstructuredString(obj map[string]any, fields ...string) (string, bool, error) {
	var cur any = obj
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return "", false, nil
		}
		cur = m[f]
	}
	s, ok := cur.(string)
	return s, ok, nil
}

func main() {
	flag.Parse()
	if *volumes == "" {
		log.Fatal("--volumes is required")
	}
	switch *mode {
	case "node":
		if *node == "" || *kubelet == "" {
			log.Fatal("--node and --kubelet-root are required")
		}
		csiSock := filepath.Join("/run/tpcc-csi", *node+".sock") // unix socket paths are limited to 108 bytes
		s := grpc.NewServer()
		csi.RegisterIdentityServer(s, identity{})
		csi.RegisterNodeServer(s, nodeServer{})
		go func() { log.Fatal(s.Serve(listen(csiSock))) }()
		r := grpc.NewServer()
		registerapi.RegisterRegistrationServer(r, registration{csiEndpoint: csiSock})
		log.Printf("node %s: CSI on %s", *node, csiSock)
		log.Fatal(r.Serve(listen(filepath.Join(*kubelet, "plugins_registry", "lcsi.sock"))))
	case "controller":
		s := grpc.NewServer()
		csi.RegisterIdentityServer(s, identity{controller: true})
		csi.RegisterControllerServer(s, controllerServer{})
		go func() { log.Fatal(s.Serve(listen(*endpoint))) }()
		cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
		if err != nil {
			log.Fatal(err)
		}
		ctx := context.Background()
		pc := controller.NewProvisionController(ctx, kubernetes.NewForConfigOrDie(cfg), driver,
			provisioner{dyn: dynamic.NewForConfigOrDie(cfg)}, controller.LeaderElection(false), controller.ResyncPeriod(30*time.Second))
		log.Printf("controller: CSI on %s, provisioner %s", *endpoint, driver)
		pc.Run(ctx)
	default:
		log.Fatalf("--mode %q", *mode)
	}
}
