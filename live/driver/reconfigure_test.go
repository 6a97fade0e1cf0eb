package driver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamtwin/streamtwin/live/rest"
)

// TestRescaleBeyondSlots: a rescale the cluster's slots cannot host is
// refused before the running job is stopped.
func TestRescaleBeyondSlots(t *testing.T) {
	var stopped atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/overview" {
			fmt.Fprint(w, `{"taskmanagers":2,"slots-total":4,"slots-available":2}`)
			return
		}
		stopped.Store(true)
		http.Error(w, `{"errors":["unexpected"]}`, http.StatusInternalServerError)
	}))
	defer srv.Close()
	r := &run{env: Env{REST: rest.New(srv.URL)}, jobID: "j", ci: 10, par: 2, start: time.Now(), ctx: context.Background()}
	err := r.Reconfigure(10, 8, nil, "scale out")
	if err == nil || !strings.Contains(err.Error(), "parallelism 8 needs 8 slots, the cluster has 4") {
		t.Errorf("err = %v", err)
	}
	if stopped.Load() {
		t.Error("the job was stopped")
	}
}
