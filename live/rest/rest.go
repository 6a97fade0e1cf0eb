package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Client talks to one Flink REST endpoint, e.g. http://127.0.0.1:8081.
type Client struct {
	base string
	http *http.Client
}

// New returns a client of base with a per-request timeout.
func New(base string) *Client {
	return &Client{base: strings.TrimRight(base, "/"), http: &http.Client{Timeout: 30 * time.Second}}
}

// APIError is a request Flink answered with an error status.
type APIError struct {
	Method, Path string
	Status       int
	Errors       []string // Flink's "errors" array
}

func (e *APIError) Error() string {
	msg := strings.Join(e.Errors, "; ")
	if len(msg) > 600 {
		msg = msg[:600] + "…"
	}
	hint := ""
	switch {
	case e.Status == http.StatusNotFound:
		hint = " (hint: the job or jar is gone — it may have finished, failed or been cancelled; check GET /jobs)"
	case e.Status >= 500:
		hint = " (hint: see the JobManager log for the stack trace)"
	case e.Status == http.StatusBadRequest:
		hint = " (hint: Flink rejected the request body or arguments)"
	}
	return fmt.Sprintf("flink REST %s %s: %d %s: %s%s", e.Method, e.Path, e.Status, http.StatusText(e.Status), msg, hint)
}

func (c *Client) do(ctx context.Context, method, path string, body io.Reader, contentType string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("flink REST %s %s: %w (hint: is the JobManager up at %s? start one with `streamtwin live up`)", method, path, err, c.base)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 400 {
		var fe struct {
			Errors []string `json:"errors"`
		}
		_ = json.Unmarshal(data, &fe)
		if len(fe.Errors) == 0 {
			fe.Errors = []string{strings.TrimSpace(string(data))}
		}
		return &APIError{Method: method, Path: path, Status: resp.StatusCode, Errors: fe.Errors}
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("flink REST %s %s: unexpected answer: %w", method, path, err)
	}
	return nil
}

func (c *Client) getJSON(ctx context.Context, path string, out any) error {
	return c.do(ctx, http.MethodGet, path, nil, "", out)
}

func (c *Client) sendJSON(ctx context.Context, method, path string, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return c.do(ctx, method, path, bytes.NewReader(b), "application/json", out)
}

// Overview is GET /overview.
type Overview struct {
	TaskManagers   int    `json:"taskmanagers"`
	SlotsTotal     int    `json:"slots-total"`
	SlotsAvailable int    `json:"slots-available"`
	JobsRunning    int    `json:"jobs-running"`
	FlinkVersion   string `json:"flink-version"`
}

func (c *Client) Overview(ctx context.Context) (Overview, error) {
	var o Overview
	return o, c.getJSON(ctx, "/overview", &o)
}

// TaskManager is one entry of GET /taskmanagers.
type TaskManager struct {
	ID        string `json:"id"`
	Slots     int    `json:"slotsNumber"`
	FreeSlots int    `json:"freeSlots"`
}

func (c *Client) TaskManagers(ctx context.Context) ([]TaskManager, error) {
	var r struct {
		TaskManagers []TaskManager `json:"taskmanagers"`
	}
	return r.TaskManagers, c.getJSON(ctx, "/taskmanagers", &r)
}

// UploadJar uploads a job jar (POST /jars/upload) and returns its jar id.
func (c *Client) UploadJar(ctx context.Context, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("job jar: %w (hint: build it with `make live-jobs`)", err)
	}
	defer f.Close()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	part, err := w.CreatePart(map[string][]string{
		"Content-Disposition": {fmt.Sprintf(`form-data; name="jarfile"; filename=%q`, filepath.Base(path))},
		"Content-Type":        {"application/x-java-archive"},
	})
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(part, f); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	var r struct {
		Filename string `json:"filename"`
		Status   string `json:"status"`
	}
	if err := c.do(ctx, http.MethodPost, "/jars/upload", &buf, w.FormDataContentType(), &r); err != nil {
		return "", err
	}
	if r.Filename == "" {
		return "", fmt.Errorf("flink REST POST /jars/upload: no file name in the answer (status %q)", r.Status)
	}
	return filepath.Base(r.Filename), nil
}

// RunRequest is the body of POST /jars/{jarid}/run.
type RunRequest struct {
	EntryClass            string            `json:"entryClass,omitempty"`
	ProgramArgsList       []string          `json:"programArgsList,omitempty"`
	Parallelism           int               `json:"parallelism,omitempty"`
	SavepointPath         string            `json:"savepointPath,omitempty"`
	AllowNonRestoredState bool              `json:"allowNonRestoredState,omitempty"`
	FlinkConfiguration    map[string]string `json:"flinkConfiguration,omitempty"`
}

// RunJar submits a job from an uploaded jar and returns its job id.
func (c *Client) RunJar(ctx context.Context, jarID string, req RunRequest) (string, error) {
	var r struct {
		JobID string `json:"jobid"`
	}
	if err := c.sendJSON(ctx, http.MethodPost, "/jars/"+url.PathEscape(jarID)+"/run", req, &r); err != nil {
		return "", err
	}
	return r.JobID, nil
}

// DeleteJar removes an uploaded jar.
func (c *Client) DeleteJar(ctx context.Context, jarID string) error {
	return c.do(ctx, http.MethodDelete, "/jars/"+url.PathEscape(jarID), nil, "", nil)
}

// JobSummary is one entry of GET /jobs/overview.
type JobSummary struct {
	ID    string `json:"jid"`
	Name  string `json:"name"`
	State string `json:"state"`
}

func (c *Client) Jobs(ctx context.Context) ([]JobSummary, error) {
	var r struct {
		Jobs []JobSummary `json:"jobs"`
	}
	return r.Jobs, c.getJSON(ctx, "/jobs/overview", &r)
}

// VertexMetrics are the cumulative per-vertex counters of GET /jobs/{id}.
type VertexMetrics struct {
	ReadRecords      float64 `json:"read-records"`
	WriteRecords     float64 `json:"write-records"`
	BusyTime         float64 `json:"accumulated-busy-time"`
	IdleTime         float64 `json:"accumulated-idle-time"`
	BackpressureTime float64 `json:"accumulated-backpressured-time"`
}

// Vertex is one job vertex.
type Vertex struct {
	ID          string        `json:"id"`
	Name        string        `json:"name"`
	Parallelism int           `json:"parallelism"`
	Status      string        `json:"status"`
	Metrics     VertexMetrics `json:"metrics"`
}

// Job is GET /jobs/{id}.
type Job struct {
	ID         string           `json:"jid"`
	Name       string           `json:"name"`
	State      string           `json:"state"`
	StartTime  int64            `json:"start-time"`
	Now        int64            `json:"now"`
	Timestamps map[string]int64 `json:"timestamps"`
	Vertices   []Vertex         `json:"vertices"`
}

func (c *Client) Job(ctx context.Context, id string) (Job, error) {
	var j Job
	return j, c.getJSON(ctx, "/jobs/"+url.PathEscape(id), &j)
}

// CheckpointStat is one checkpoint of GET /jobs/{id}/checkpoints.
type CheckpointStat struct {
	ID                 int64  `json:"id"`
	Status             string `json:"status"`
	IsSavepoint        bool   `json:"is_savepoint"`
	TriggerTimestamp   int64  `json:"trigger_timestamp"`
	LatestAckTimestamp int64  `json:"latest_ack_timestamp"` // 0 when no task acknowledged
	FailureTimestamp   int64  `json:"failure_timestamp"`    // failed checkpoints only
	EndToEndDuration   int64  `json:"end_to_end_duration"`
	StateSize          int64  `json:"state_size"`
	CheckpointedSize   int64  `json:"checkpointed_size"`
	ExternalPath       string `json:"external_path"`
}

// Checkpoints is GET /jobs/{id}/checkpoints.
type Checkpoints struct {
	Counts struct {
		Restored   int `json:"restored"`
		Total      int `json:"total"`
		InProgress int `json:"in_progress"`
		Completed  int `json:"completed"`
		Failed     int `json:"failed"`
	} `json:"counts"`
	Latest struct {
		Completed *CheckpointStat `json:"completed"`
		Failed    *CheckpointStat `json:"failed"`
		Restored  *struct {
			ID               int64 `json:"id"`
			RestoreTimestamp int64 `json:"restore_timestamp"`
			IsSavepoint      bool  `json:"is_savepoint"`
		} `json:"restored"`
	} `json:"latest"`
	History []CheckpointStat `json:"history"`
}

func (c *Client) Checkpoints(ctx context.Context, id string) (Checkpoints, error) {
	var cp Checkpoints
	return cp, c.getJSON(ctx, "/jobs/"+url.PathEscape(id)+"/checkpoints", &cp)
}

// StopWithSavepoint stops the job with a savepoint into dir (POST
// /jobs/{id}/stop) and waits for it, returning the savepoint's location.
// drain first advances the event time to its end, so every window fires.
func (c *Client) StopWithSavepoint(ctx context.Context, id, dir string, drain bool) (string, error) {
	var r struct {
		RequestID string `json:"request-id"`
	}
	body := map[string]any{"targetDirectory": dir, "drain": drain}
	if err := c.sendJSON(ctx, http.MethodPost, "/jobs/"+url.PathEscape(id)+"/stop", body, &r); err != nil {
		return "", err
	}
	return c.waitSavepoint(ctx, id, r.RequestID, "stop-with-savepoint")
}

// Cancel cancels a job (PATCH /jobs/{id}?mode=cancel).
func (c *Client) Cancel(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodPatch, "/jobs/"+url.PathEscape(id)+"?mode=cancel", nil, "", nil)
}

// metricValues parses the [{id, value}] or [{id, sum, …}] answers.
func metricValues(raw []map[string]any, field string) map[string]float64 {
	out := map[string]float64{}
	for _, m := range raw {
		id, _ := m["id"].(string)
		switch v := m[field].(type) {
		case string:
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				out[id] = f
			}
		case float64:
			out[id] = v
		}
	}
	return out
}

// JobMetrics reads job-level metrics (GET /jobs/{id}/metrics?get=…), e.g.
// numRestarts, lastCheckpointDuration.
func (c *Client) JobMetrics(ctx context.Context, id string, names ...string) (map[string]float64, error) {
	var raw []map[string]any
	path := "/jobs/" + url.PathEscape(id) + "/metrics?get=" + url.QueryEscape(strings.Join(names, ","))
	if err := c.getJSON(ctx, path, &raw); err != nil {
		return nil, err
	}
	return metricValues(raw, "value"), nil
}

// TaskManagerMetrics reads a TaskManager's metrics (GET
// /taskmanagers/{id}/metrics?get=…), e.g. Status.JVM.CPU.Time (its JVM's
// CPU time in ns). The JobManager answers from its metric cache.
func (c *Client) TaskManagerMetrics(ctx context.Context, id string, names ...string) (map[string]float64, error) {
	var raw []map[string]any
	path := "/taskmanagers/" + url.PathEscape(id) + "/metrics?get=" + url.QueryEscape(strings.Join(names, ","))
	if err := c.getJSON(ctx, path, &raw); err != nil {
		return nil, err
	}
	return metricValues(raw, "value"), nil
}

// SubtaskMetrics aggregates a vertex's subtask metrics with agg (sum, avg,
// max, …): GET /jobs/{id}/vertices/{vid}/subtasks/metrics?get=…&agg=….
// A name Flink does not know yet is missing from the map, and so is every
// other name of the same request: Flink 2.2.1 answers [] to the whole
// request when one of its names is unknown (measured live). Ask for names
// that may be missing (operator metrics before their first update) one at a
// time, or with VertexMetricValues.
func (c *Client) SubtaskMetrics(ctx context.Context, jobID, vertexID, agg string, names ...string) (map[string]float64, error) {
	var raw []map[string]any
	path := fmt.Sprintf("/jobs/%s/vertices/%s/subtasks/metrics?get=%s&agg=%s", url.PathEscape(jobID), url.PathEscape(vertexID),
		url.QueryEscape(strings.Join(names, ",")), url.QueryEscape(agg))
	if err := c.getJSON(ctx, path, &raw); err != nil {
		return nil, err
	}
	return metricValues(raw, agg), nil
}

// SubtaskMetricNames lists the metric ids a vertex's subtasks have now
// (operator metrics appear once the operator has run).
func (c *Client) SubtaskMetricNames(ctx context.Context, jobID, vertexID string) ([]string, error) {
	return c.metricNames(ctx, fmt.Sprintf("/jobs/%s/vertices/%s/subtasks/metrics", url.PathEscape(jobID), url.PathEscape(vertexID)))
}

// VertexMetricNames lists the metric ids of a vertex's subtasks as GET
// /jobs/{id}/vertices/{vid}/metrics names them: "<subtask index>.<metric
// id>", e.g. "0.numRecordsIn" or, for a latency-marker histogram,
// "1.latency.source_id.<op>.operator_id.<op>.operator_subtask_index.1.latency_p99".
func (c *Client) VertexMetricNames(ctx context.Context, jobID, vertexID string) ([]string, error) {
	return c.metricNames(ctx, fmt.Sprintf("/jobs/%s/vertices/%s/metrics", url.PathEscape(jobID), url.PathEscape(vertexID)))
}

// metricNames lists the ids of a metrics endpoint ([{"id": …}, …]).
func (c *Client) metricNames(ctx context.Context, path string) ([]string, error) {
	var raw []map[string]any
	if err := c.getJSON(ctx, path, &raw); err != nil {
		return nil, err
	}
	var names []string
	for _, m := range raw {
		if id, ok := m["id"].(string); ok {
			names = append(names, id)
		}
	}
	return names, nil
}

// VertexMetricValues reads per-subtask metrics of a vertex by the ids of
// VertexMetricNames (GET /jobs/{id}/vertices/{vid}/metrics?get=…). Unlike
// SubtaskMetrics, an id Flink does not know is only missing from the map,
// the others are answered; values come as strings, so "NaN" reads as NaN.
func (c *Client) VertexMetricValues(ctx context.Context, jobID, vertexID string, names ...string) (map[string]float64, error) {
	var raw []map[string]any
	path := fmt.Sprintf("/jobs/%s/vertices/%s/metrics?get=%s", url.PathEscape(jobID), url.PathEscape(vertexID),
		url.QueryEscape(strings.Join(names, ",")))
	if err := c.getJSON(ctx, path, &raw); err != nil {
		return nil, err
	}
	return metricValues(raw, "value"), nil
}

// VertexTaskManagers lists the TaskManager ids running a vertex's
// subtasks (Khaos picks its kill target here).
func (c *Client) VertexTaskManagers(ctx context.Context, jobID, vertexID string) ([]string, error) {
	var r struct {
		TaskManagers []struct {
			ID string `json:"taskmanager-id"`
		} `json:"taskmanagers"`
	}
	if err := c.getJSON(ctx, fmt.Sprintf("/jobs/%s/vertices/%s/taskmanagers", url.PathEscape(jobID), url.PathEscape(vertexID)), &r); err != nil {
		return nil, err
	}
	var ids []string
	for _, t := range r.TaskManagers {
		ids = append(ids, t.ID)
	}
	return ids, nil
}

// SubtasksRunningSince is when the last subtask of a vertex's current
// execution attempts turned RUNNING (Unix ms), from GET
// /jobs/{id}/vertices/{vid}/subtasktimes; ok is false while one is not
// RUNNING yet (its RUNNING timestamp is 0).
func (c *Client) SubtasksRunningSince(ctx context.Context, jobID, vertexID string) (ms int64, ok bool, err error) {
	var r struct {
		Subtasks []struct {
			Timestamps map[string]int64 `json:"timestamps"`
		} `json:"subtasks"`
	}
	if err := c.getJSON(ctx, fmt.Sprintf("/jobs/%s/vertices/%s/subtasktimes", url.PathEscape(jobID), url.PathEscape(vertexID)), &r); err != nil {
		return 0, false, err
	}
	for _, s := range r.Subtasks {
		ts := s.Timestamps["RUNNING"]
		if ts <= 0 {
			return 0, false, nil
		}
		ms = max(ms, ts)
	}
	return ms, len(r.Subtasks) > 0, nil
}

// IsNotFound reports a 404 from Flink.
func IsNotFound(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == http.StatusNotFound
}

// SetParallelism is the adaptive scheduler's declarative rescale (FLIP-291):
// it reads GET /jobs/{id}/resource-requirements and PUTs every vertex back
// with parallelism bounds [1, par], or [1, vertices[name]] for a vertex
// vertices names (by its REST name). The scheduler then restarts the job
// from its latest completed checkpoint at the parallelism its slots allow,
// up to the bounds. It needs jobmanager.scheduler: adaptive.
func (c *Client) SetParallelism(ctx context.Context, jobID string, par int, vertices map[string]int) error {
	path := fmt.Sprintf("/jobs/%s/resource-requirements", url.PathEscape(jobID))
	var req map[string]struct {
		Parallelism struct {
			LowerBound int `json:"lowerBound"`
			UpperBound int `json:"upperBound"`
		} `json:"parallelism"`
	}
	if err := c.getJSON(ctx, path, &req); err != nil {
		return err
	}
	names := map[string]string{} // vertex id → name
	if vertices != nil {
		j, err := c.Job(ctx, jobID)
		if err != nil {
			return err
		}
		for _, v := range j.Vertices {
			names[v.ID] = v.Name
		}
		for name := range vertices {
			if !slices.ContainsFunc(j.Vertices, func(v Vertex) bool { return v.Name == name }) {
				return fmt.Errorf("job %s has no vertex %q", jobID, name)
			}
		}
	}
	for id, v := range req {
		v.Parallelism.LowerBound, v.Parallelism.UpperBound = 1, par
		if p, ok := vertices[names[id]]; ok {
			v.Parallelism.UpperBound = p
		}
		req[id] = v
	}
	return c.sendJSON(ctx, http.MethodPut, path, req, nil)
}

// JobManagerConfig is GET /jobmanager/config: the cluster's configuration
// as the JobManager read it.
func (c *Client) JobManagerConfig(ctx context.Context) (map[string]string, error) {
	var r []struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	if err := c.getJSON(ctx, "/jobmanager/config", &r); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(r))
	for _, kv := range r {
		out[kv.Key] = kv.Value
	}
	return out, nil
}

// SubtaskIO is one subtask of GET /jobs/{id}/vertices/{vid}: where it
// runs and its accumulated I/O and busy time since it (its attempt)
// started.
type SubtaskIO struct {
	Subtask     int    `json:"subtask"`
	Attempt     int    `json:"attempt"`
	Status      string `json:"status"`
	TaskManager string `json:"taskmanager-id"`
	Metrics     struct {
		ReadRecords  float64 `json:"read-records"`
		WriteRecords float64 `json:"write-records"`
		BusyMs       float64 `json:"accumulated-busy-time"`
	} `json:"metrics"`
}

// VertexIO is GET /jobs/{id}/vertices/{vid}: a vertex's subtasks and the
// JobManager's clock (Unix ms) when it answered.
type VertexIO struct {
	Name           string      `json:"name"`
	Parallelism    int         `json:"parallelism"`
	MaxParallelism int         `json:"maxParallelism"`
	Now            int64       `json:"now"`
	Subtasks       []SubtaskIO `json:"subtasks"`
}

func (c *Client) VertexIO(ctx context.Context, jobID, vertexID string) (VertexIO, error) {
	var v VertexIO
	return v, c.getJSON(ctx, fmt.Sprintf("/jobs/%s/vertices/%s", url.PathEscape(jobID), url.PathEscape(vertexID)), &v)
}
