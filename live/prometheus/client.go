package prometheus

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// Client talks to one Prometheus server whose configuration file it may
// rewrite (SetScraping). It is safe for concurrent use.
type Client struct {
	url    string
	config string // prometheus.yml; "" = read-only (no SetScraping)
	raw    api.Client
	api    v1.API

	// ReloadTimeout bounds the wait for a reload to show in
	// /api/v1/status/runtimeinfo (default 10 s).
	ReloadTimeout time.Duration

	mu  sync.Mutex
	off map[string]bool
}

// New returns a client of the server at url ("http://127.0.0.1:9090")
// that rewrites configPath to turn families on and off; configPath "" gives
// a client for queries only.
func New(url, configPath string) (*Client, error) {
	raw, err := api.NewClient(api.Config{Address: url, Client: &http.Client{Timeout: 30 * time.Second}})
	if err != nil {
		return nil, err
	}
	c := &Client{url: strings.TrimRight(url, "/"), config: configPath, raw: raw, api: v1.NewAPI(raw),
		ReloadTimeout: 10 * time.Second, off: map[string]bool{}}
	if configPath != "" {
		f, err := ReadFile(configPath)
		if err != nil {
			return nil, err
		}
		for _, fam := range f.Off() {
			c.off[fam] = true
		}
	}
	return c, nil
}

// URL is the server's base URL.
func (c *Client) URL() string { return c.url }

// API is the official client's v1 API, for anything this package does not
// wrap.
func (c *Client) API() v1.API { return c.api }

// Off lists the families currently turned off, sorted.
func (c *Client) Off() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for fam, off := range c.off {
		if off {
			out = append(out, fam)
		}
	}
	sort.Strings(out)
	return out
}

// SetScraping turns scraping of one metric family on or off and returns
// once Prometheus runs the new configuration (see Scrape).
func (c *Client) SetScraping(ctx context.Context, family string, on bool) error {
	return c.Scrape(ctx, map[string]bool{family: on})
}

// Scrape applies several families' on/off states in one reload: it
// rewrites the configuration's drop rule, POSTs /-/reload and waits until
// /api/v1/status/runtimeinfo reports a successful reload no older than the
// request. Nothing is written or reloaded when no state changes.
func (c *Client) Scrape(ctx context.Context, states map[string]bool) error {
	if c.config == "" {
		return fmt.Errorf("prometheus client of %s has no configuration file to rewrite", c.url)
	}
	for fam := range states {
		if err := CheckFamily(fam); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	changed := false
	for fam, on := range states {
		if c.off[fam] == on { // off[fam] false = on
			changed = true
		}
	}
	if !changed {
		return nil
	}
	next := map[string]bool{}
	for fam, off := range c.off {
		next[fam] = off
	}
	for fam, on := range states {
		next[fam] = !on
	}
	var off []string
	for fam, o := range next {
		if o {
			off = append(off, fam)
		}
	}
	f, err := ReadFile(c.config)
	if err != nil {
		return err
	}
	if err := f.WithOff(off).WriteFile(c.config); err != nil {
		return err
	}
	if err := c.Reload(ctx); err != nil {
		return err
	}
	c.off = next
	return nil
}

// Reload POSTs /-/reload (the server runs with --web.enable-lifecycle) and
// waits until the runtime information shows a successful reload at or
// after the request (its time has whole seconds).
func (c *Client) Reload(ctx context.Context) error {
	t0 := time.Now().Truncate(time.Second)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url+"/-/reload", nil)
	if err != nil {
		return err
	}
	resp, body, err := c.raw.Do(ctx, req)
	if err != nil {
		return fmt.Errorf("POST %s/-/reload: %w", c.url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s/-/reload: %s: %s", c.url, resp.Status, strings.TrimSpace(string(body)))
	}
	ctx, cancel := context.WithTimeout(ctx, c.ReloadTimeout)
	defer cancel()
	for {
		ri, err := c.api.Runtimeinfo(ctx)
		if err == nil && ri.ReloadConfigSuccess && !ri.LastConfigTime.Before(t0) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the reload of %s (runtimeinfo: success %v at %v, err %v): %w",
				c.url, ri.ReloadConfigSuccess, ri.LastConfigTime, err, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Count is what the TSDB holds for a family in a time range.
type Count struct {
	Samples int // raw samples of all its series
	Series  int // series with at least one sample
}

// Share is Samples ÷ (series × seconds): the family's transmitted share
// against a 1 s scrape of as many series over the range. NaN without series.
func (n Count) Share(seconds float64) float64 {
	if n.Series == 0 || seconds <= 0 {
		return math.NaN()
	}
	return float64(n.Samples) / (float64(n.Series) * seconds)
}

// Samples counts the raw samples and the series of family stored in
// (from, to] by every job but TruthJob: sum and count of count_over_time
// over the range, evaluated at to (see the package comment for why not
// query_range).
func (c *Client) Samples(ctx context.Context, family string, from, to time.Time) (Count, error) {
	if err := CheckFamily(family); err != nil {
		return Count{}, err
	}
	ms := to.Sub(from).Milliseconds()
	if ms <= 0 {
		return Count{}, fmt.Errorf("samples of %s: empty range %v … %v", family, from, to)
	}
	sel := fmt.Sprintf(`count_over_time({__name__=%q,job!=%q}[%dms])`, family, TruthJob, ms)
	samples, err := c.scalar(ctx, "sum("+sel+")", to)
	if err != nil {
		return Count{}, err
	}
	series, err := c.scalar(ctx, "count("+sel+")", to)
	if err != nil {
		return Count{}, err
	}
	return Count{Samples: int(math.Round(samples)), Series: int(math.Round(series))}, nil
}

// scalar runs an instant query whose answer is one number (an empty
// vector is 0).
func (c *Client) scalar(ctx context.Context, q string, at time.Time) (float64, error) {
	v, _, err := c.api.Query(ctx, q, at)
	if err != nil {
		return 0, fmt.Errorf("query %s: %w", q, err)
	}
	switch v := v.(type) {
	case model.Vector:
		if len(v) == 0 {
			return 0, nil
		}
		if len(v) > 1 {
			return 0, fmt.Errorf("query %s: %d series, want one", q, len(v))
		}
		return float64(v[0].Value), nil
	case *model.Scalar:
		return float64(v.Value), nil
	default:
		return 0, fmt.Errorf("query %s: a %s, want a vector", q, v.Type())
	}
}

// Value is an instant query at a time: one value per series.
func (c *Client) Value(ctx context.Context, query string, at time.Time) ([]Sample, error) {
	v, _, err := c.api.Query(ctx, query, at)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", query, err)
	}
	switch v := v.(type) {
	case model.Vector:
		out := make([]Sample, len(v))
		for i, s := range v {
			out[i] = Sample{Labels: labels(s.Metric), T: s.Timestamp.Time(), V: float64(s.Value)}
		}
		return out, nil
	case *model.Scalar:
		return []Sample{{T: v.Timestamp.Time(), V: float64(v.Value)}}, nil
	default:
		return nil, fmt.Errorf("query %s: a %s, want a vector", query, v.Type())
	}
}

// Sample is one value of one series.
type Sample struct {
	Labels map[string]string
	T      time.Time
	V      float64
}

// Point is a value at a time.
type Point struct {
	T time.Time
	V float64
}

// Series is one series of a range query.
type Series struct {
	Labels map[string]string
	Points []Point
}

// Series runs /api/v1/query_range from from to to at step: the values of
// query at every step, per series, sorted by their labels. A step without
// a value (no sample in the lookback, or a staleness marker) is missing
// from Points.
func (c *Client) Series(ctx context.Context, query string, from, to time.Time, step time.Duration) ([]Series, error) {
	if step <= 0 || !to.After(from) {
		return nil, fmt.Errorf("query_range %s: want from < to and step > 0", query)
	}
	v, _, err := c.api.QueryRange(ctx, query, v1.Range{Start: from, End: to, Step: step})
	if err != nil {
		return nil, fmt.Errorf("query_range %s: %w", query, err)
	}
	m, ok := v.(model.Matrix)
	if !ok {
		return nil, fmt.Errorf("query_range %s: a %s, want a matrix", query, v.Type())
	}
	out := make([]Series, len(m))
	for i, s := range m {
		ps := make([]Point, len(s.Values))
		for j, p := range s.Values {
			ps[j] = Point{T: p.Timestamp.Time(), V: float64(p.Value)}
		}
		out[i] = Series{Labels: labels(s.Metric), Points: ps}
	}
	sort.Slice(out, func(i, j int) bool { return labelKey(out[i].Labels) < labelKey(out[j].Labels) })
	return out, nil
}

func labels(m model.Metric) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[string(k)] = string(v)
	}
	return out
}

func labelKey(l map[string]string) string {
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + l[k] + ",")
	}
	return b.String()
}

// Targets counts the active targets and those whose last scrape was up.
func (c *Client) Targets(ctx context.Context) (up, total int, err error) {
	r, err := c.api.Targets(ctx)
	if err != nil {
		return 0, 0, err
	}
	for _, t := range r.Active {
		total++
		if t.Health == v1.HealthGood {
			up++
		}
	}
	return up, total, nil
}

// Ready tells whether the server answers /-/ready with 200.
func (c *Client) Ready(ctx context.Context) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url+"/-/ready", nil)
	if err != nil {
		return false
	}
	resp, _, err := c.raw.Do(ctx, req)
	return err == nil && resp.StatusCode == http.StatusOK
}
