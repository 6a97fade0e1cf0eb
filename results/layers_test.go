package results

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBaseLayerImports keeps results the base layer (doc.go): no plotting
// or font package, directly or not, and none of the results layers above
// it, so a policy or backend that needs a Sample does not pull in a
// renderer.
func TestBaseLayerImports(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool:", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "gonum.org/v1/plot") || strings.HasPrefix(dep, "golang.org/x/image") ||
			strings.Contains(dep, "font") || strings.HasPrefix(dep, "github.com/streamtwin/streamtwin/results/") {
			t.Errorf("results depends on %s", dep)
		}
	}
}
