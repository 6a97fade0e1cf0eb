package rest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// TriggerSavepoint takes a savepoint into dir while the job keeps running
// (POST /jobs/{id}/savepoints with cancel-job false) and waits for it,
// returning the savepoint's location.
func (c *Client) TriggerSavepoint(ctx context.Context, id, dir string) (string, error) {
	var r struct {
		RequestID string `json:"request-id"`
	}
	body := map[string]any{"target-directory": dir, "cancel-job": false}
	if err := c.sendJSON(ctx, http.MethodPost, "/jobs/"+url.PathEscape(id)+"/savepoints", body, &r); err != nil {
		return "", err
	}
	return c.waitSavepoint(ctx, id, r.RequestID, "savepoint")
}

// waitSavepoint polls a savepoint operation (what names it in errors)
// until it completes, and returns its location.
func (c *Client) waitSavepoint(ctx context.Context, id, requestID, what string) (string, error) {
	path := "/jobs/" + url.PathEscape(id) + "/savepoints/" + url.PathEscape(requestID)
	for {
		var s struct {
			Status struct {
				ID string `json:"id"`
			} `json:"status"`
			Operation struct {
				Location     string `json:"location"`
				FailureCause *struct {
					Class      string `json:"class"`
					StackTrace string `json:"stack-trace"`
				} `json:"failure-cause"`
			} `json:"operation"`
		}
		if err := c.getJSON(ctx, path, &s); err != nil {
			return "", err
		}
		if s.Status.ID == "COMPLETED" {
			if fc := s.Operation.FailureCause; fc != nil {
				first, _, _ := strings.Cut(fc.StackTrace, "\n")
				return "", fmt.Errorf("%s of job %s failed: %s", what, id, first)
			}
			return s.Operation.Location, nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(100 * time.Millisecond): // Khaos polls every 100 ms
		}
	}
}
