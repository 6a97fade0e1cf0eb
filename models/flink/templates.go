package flink

import (
	"embed"
	"fmt"
	"sort"
	"strings"
)

//go:embed templates/*.yaml
var templateFS embed.FS

// Template returns the YAML of a job template (a document with a `job:`
// mapping). A scenario names it with job.template and overrides any key;
// operators are merged by name.
func Template(name string) ([]byte, error) {
	b, err := templateFS.ReadFile("templates/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("unknown job template %q; choose one of %v", name, Templates())
	}
	return b, nil
}

// Templates lists the job templates.
func Templates() []string {
	entries, _ := templateFS.ReadDir("templates")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}
