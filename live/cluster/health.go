package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// What the running cluster reports of itself (Flink's REST API, Kafka's
// metadata), and the waits for it to be healthy.

// Overview is GET /overview.
type Overview struct {
	TaskManagers   int    `json:"taskmanagers"`
	SlotsTotal     int    `json:"slots-total"`
	SlotsAvailable int    `json:"slots-available"`
	JobsRunning    int    `json:"jobs-running"`
	JobsFinished   int    `json:"jobs-finished"`
	JobsCancelled  int    `json:"jobs-cancelled"`
	JobsFailed     int    `json:"jobs-failed"`
	FlinkVersion   string `json:"flink-version"`
	FlinkCommit    string `json:"flink-commit"`
}

// Overview asks the REST API for /overview.
func (c *Cluster) Overview(ctx context.Context) (Overview, error) {
	var o Overview
	err := c.getJSON(ctx, "/overview", &o)
	return o, err
}

// TaskManagerIDs lists the ids of GET /taskmanagers.
func (c *Cluster) TaskManagerIDs(ctx context.Context) ([]string, error) {
	var r struct {
		TaskManagers []struct {
			ID string `json:"id"`
		} `json:"taskmanagers"`
	}
	if err := c.getJSON(ctx, "/taskmanagers", &r); err != nil {
		return nil, err
	}
	ids := make([]string, len(r.TaskManagers))
	for i, t := range r.TaskManagers {
		ids[i] = t.ID
	}
	return ids, nil
}

func (c *Cluster) getJSON(ctx context.Context, path string, v any) error {
	hc := c.http
	if hc == nil {
		hc = &http.Client{Timeout: 3 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Endpoints().REST+path, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// KafkaMetadata asks the broker for cluster metadata (kadm).
func (c *Cluster) KafkaMetadata(ctx context.Context) (kadm.Metadata, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Endpoints().Kafka), kgo.DialTimeout(2*time.Second))
	if err != nil {
		return kadm.Metadata{}, err
	}
	defer cl.Close()
	return kadm.NewClient(cl).Metadata(ctx)
}

// waitHealthy polls until /overview shows n TaskManagers with all their
// slots (the slot report follows the registration) and Kafka answers
// metadata. A process that exits fails the wait at once; a timeout names
// what is missing with the tail of its log.
func (c *Cluster) waitHealthy(ctx context.Context, n, slots int) error {
	kcl, err := kgo.NewClient(kgo.SeedBrokers(c.Endpoints().Kafka), kgo.DialTimeout(2*time.Second))
	if err != nil {
		return err
	}
	defer kcl.Close()
	adm := kadm.NewClient(kcl)
	kafkaOK, tms, slotsSeen := false, -1, 0
	var kafkaErr, restErr error
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, p := range c.State().Processes {
			if !alive(p.PID, c.mark(p)) {
				return fmt.Errorf("%s (pid %d) exited during start; tail of %s:\n%s", p.Name, p.PID, p.Log, logTail(p.Log, 30))
			}
		}
		if !kafkaOK {
			kctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			md, err := adm.BrokerMetadata(kctx)
			cancel()
			kafkaOK = err == nil && len(md.Brokers) > 0 && md.Controller >= 0
			kafkaErr = err
		}
		if tms < n || slotsSeen < n*slots {
			rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			o, err := c.Overview(rctx)
			cancel()
			restErr = err
			if err == nil {
				tms, slotsSeen = o.TaskManagers, o.SlotsTotal
			}
		}
		if kafkaOK && tms >= n && slotsSeen >= n*slots {
			return nil
		}
		select {
		case <-ctx.Done():
			return c.unhealthy(ctx.Err(), n, tms, kafkaOK, kafkaErr, restErr)
		case <-tick.C:
		}
	}
}

func (c *Cluster) unhealthy(cause error, n, tms int, kafkaOK bool, kafkaErr, restErr error) error {
	var b strings.Builder
	fmt.Fprintf(&b, "cluster not healthy (%v):", cause)
	logOf := func(name string) string { return c.layout.logFile(name) }
	if !kafkaOK {
		fmt.Fprintf(&b, "\nkafka answers no metadata (%v); tail of %s:\n%s", kafkaErr, logOf("kafka"), logTail(logOf("kafka"), 25))
	}
	if tms < 0 {
		fmt.Fprintf(&b, "\nREST /overview does not answer (%v); tail of %s:\n%s", restErr, logOf("jobmanager"), logTail(logOf("jobmanager"), 25))
	} else if tms < n {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		ids, _ := c.TaskManagerIDs(ctx)
		cancel()
		have := map[string]bool{}
		for _, id := range ids {
			have[id] = true
		}
		fmt.Fprintf(&b, "\n/overview shows %d of %d taskmanagers", tms, n)
		for i := 1; i <= n; i++ {
			if name := TaskManagerID(i); !have[name] {
				fmt.Fprintf(&b, "\n%s did not register; tail of %s:\n%s", name, logOf(name), logTail(logOf(name), 25))
			}
		}
	}
	return errors.New(b.String())
}

// WaitTaskManagers polls /overview every 100 ms until it shows exactly n
// TaskManagers and returns how long that took.
func (c *Cluster) WaitTaskManagers(ctx context.Context, n int) (time.Duration, error) {
	t0 := time.Now()
	last := -1
	for {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		o, err := c.Overview(rctx)
		cancel()
		if err == nil {
			last = o.TaskManagers
			if last == n {
				return time.Since(t0), nil
			}
		}
		select {
		case <-ctx.Done():
			return time.Since(t0), fmt.Errorf("waiting for %d taskmanagers (last seen %d): %w", n, last, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
