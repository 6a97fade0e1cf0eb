package driver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/streamtwin/streamtwin/live/rest"
)

// restVertices names a vertices request by the job's REST vertices: a
// REST name as it is, a scenario operator's by vertexLike (a name the
// vertex's contains, the writer for "sink"); one the job lacks is an error.
func TestRestVertices(t *testing.T) {
	j := rest.Job{Vertices: []rest.Vertex{{ID: "a", Name: "Source: Kafka"}, {ID: "b", Name: "Window count"},
		{ID: "c", Name: "Sink: Kafka: Writer"}, {ID: "d", Name: "Sink: Kafka: Committer"}}}
	got, err := restVertices(j, map[string]int{"window": 2, "sink": 1, "Source: Kafka": 3})
	if err != nil || fmt.Sprint(got) != "map[Sink: Kafka: Writer:1 Source: Kafka:3 Window count:2]" {
		t.Errorf("got %v, %v", got, err)
	}
	if _, err := restVertices(j, map[string]int{"join": 2}); err == nil || !strings.Contains(err.Error(), `no vertex named like "join"`) {
		t.Errorf("unknown operator: %v", err)
	}
	if got, err := restVertices(j, nil); got != nil || err != nil {
		t.Errorf("nil: %v, %v", got, err)
	}
}
