package ysb

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// fullRE pins core.clj's exact spacing and field order.
var fullRE = regexp.MustCompile(`^\{"user_id": "[^"]+", "page_id": "[^"]+", "ad_id": "[^"]+", "ad_type": "[^"]+", "event_type": "[^"]+", "event_time": "[0-9]+", "ip_address": "1\.2\.3\.4"\}$`)

const testStart = int64(1630930000000)

type event struct {
	user, page, ad, adType, eventType string
	ts                                int64
}

func lines(b []byte) [][]byte {
	if len(b) == 0 {
		return nil
	}
	if b[len(b)-1] != '\n' {
		panic("output not newline-terminated")
	}
	return bytes.Split(b[:len(b)-1], []byte("\n"))
}

// parseEvent decodes one line with encoding/json and checks it has exactly
// the schema's keys with the schema's JSON types.
func parseEvent(f Format, line []byte) (event, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return event{}, err
	}
	if dec.More() {
		return event{}, fmt.Errorf("trailing data")
	}
	str := func(k string) (string, error) {
		s, ok := m[k].(string)
		if !ok {
			return "", fmt.Errorf("key %q: %T, want string", k, m[k])
		}
		return s, nil
	}
	var e event
	var err error
	switch f {
	case Full:
		want := []string{"ad_id", "ad_type", "event_time", "event_type", "ip_address", "page_id", "user_id"}
		if got := slices.Sorted(mapsKeys(m)); !slices.Equal(got, want) {
			return e, fmt.Errorf("keys %v, want %v", got, want)
		}
		vals := map[string]*string{"user_id": &e.user, "page_id": &e.page, "ad_id": &e.ad, "ad_type": &e.adType, "event_type": &e.eventType}
		for k, p := range vals {
			if *p, err = str(k); err != nil {
				return e, err
			}
		}
		t, err := str("event_time")
		if err != nil {
			return e, err
		}
		if e.ts, err = strconv.ParseInt(t, 10, 64); err != nil {
			return e, err
		}
		ip, err := str("ip_address")
		if err != nil || ip != "1.2.3.4" {
			return e, fmt.Errorf("ip_address %q %v", ip, err)
		}
		if !fullRE.Match(line) {
			return e, fmt.Errorf("not core.clj layout: %s", line)
		}
	case Compact:
		want := []string{"et", "id", "ts"}
		if got := slices.Sorted(mapsKeys(m)); !slices.Equal(got, want) {
			return e, fmt.Errorf("keys %v, want %v", got, want)
		}
		n, ok := m["ts"].(json.Number)
		if !ok {
			return e, fmt.Errorf("ts: %T, want number", m["ts"])
		}
		if e.ts, err = n.Int64(); err != nil {
			return e, err
		}
		if e.ad, err = str("id"); err != nil {
			return e, err
		}
		if e.eventType, err = str("et"); err != nil {
			return e, err
		}
	}
	return e, nil
}

// decodeEvent is the cheaper decode (typed struct, no schema strictness)
// for bulk statistics; TestEventSchema applies parseEvent's strict checks.
func decodeEvent(f Format, line []byte) (event, error) {
	var e event
	if f == Compact {
		var c struct {
			TS int64  `json:"ts"`
			ID string `json:"id"`
			ET string `json:"et"`
		}
		err := json.Unmarshal(line, &c)
		return event{ad: c.ID, eventType: c.ET, ts: c.TS}, err
	}
	var r struct {
		User string `json:"user_id"`
		Page string `json:"page_id"`
		Ad   string `json:"ad_id"`
		AT   string `json:"ad_type"`
		ET   string `json:"event_type"`
		TS   int64  `json:"event_time,string"`
	}
	if err := json.Unmarshal(line, &r); err != nil {
		return e, err
	}
	return event{r.User, r.Page, r.Ad, r.AT, r.ET, r.TS}, nil
}

func mapsKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func TestMapping(t *testing.T) {
	c := NewCampaigns(42)
	out := c.AppendMapping(nil)
	ls := lines(out)
	if len(ls) != NumAds {
		t.Fatalf("%d mapping lines, want %d", len(ls), NumAds)
	}
	ads := map[string]bool{}
	perCampaign := map[string]int{}
	for i, l := range ls {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		ad, ok1 := m["ad_id"].(string)
		camp, ok2 := m["campaign_id"].(string)
		if len(m) != 2 || !ok1 || !ok2 {
			t.Fatalf("line %d: bad schema %s", i, l)
		}
		if !uuidRE.MatchString(ad) || !uuidRE.MatchString(camp) {
			t.Errorf("line %d: not UUID v4: %s", i, l)
		}
		if ads[ad] {
			t.Errorf("duplicate ad %s", ad)
		}
		ads[ad] = true
		perCampaign[camp]++
		if ad != c.AdID(i) || camp != c.Campaign(i) || camp != c.CampaignID(i/AdsPerCampaign) {
			t.Errorf("line %d disagrees with accessors", i)
		}
		if got, ok := c.CampaignOf(ad); !ok || got != camp {
			t.Errorf("CampaignOf(%s) = %q, %v", ad, got, ok)
		}
		if j, ok := c.AdIndex(ad); !ok || j != i {
			t.Errorf("AdIndex(%s) = %d, %v", ad, j, ok)
		}
	}
	if len(perCampaign) != NumCampaigns {
		t.Errorf("%d campaigns, want %d", len(perCampaign), NumCampaigns)
	}
	for camp, n := range perCampaign {
		if n != AdsPerCampaign {
			t.Errorf("campaign %s has %d ads", camp, n)
		}
		if ads[camp] {
			t.Errorf("campaign id %s reused as ad id", camp)
		}
	}
	if _, ok := c.CampaignOf("nope"); ok {
		t.Error("CampaignOf(unknown) ok")
	}
}

func TestCampaignsDeterministic(t *testing.T) {
	a, b, d := NewCampaigns(7).AppendMapping(nil), NewCampaigns(7).AppendMapping(nil), NewCampaigns(8).AppendMapping(nil)
	if !bytes.Equal(a, b) {
		t.Error("same seed, different mapping")
	}
	if bytes.Equal(a, d) {
		t.Error("different seed, same mapping")
	}
}

func TestEventSchema(t *testing.T) {
	c := NewCampaigns(1)
	adTypes := map[string]bool{}
	for _, s := range AdTypes {
		adTypes[s] = true
	}
	evTypes := map[string]bool{}
	for _, s := range EventTypes {
		evTypes[s] = true
	}
	for _, tc := range []struct {
		name   string
		format Format
		rates  []int
	}{
		{"full", Full, []int{1, 3, 1000, 2500}},
		{"compact", Compact, []int{1, 3, 1000, 2500}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGenerator(c, 2, testStart, tc.format)
			users, pages := map[string]bool{}, map[string]bool{}
			for _, u := range g.users {
				users[u] = true
			}
			for _, p := range g.pages {
				pages[p] = true
			}
			if len(users) != NumUsers || len(pages) != NumPages {
				t.Fatalf("pools: %d users, %d pages", len(users), len(pages))
			}
			for sec, rate := range tc.rates {
				ls := lines(g.AppendSecond(nil, rate))
				if len(ls) != rate {
					t.Fatalf("second %d: %d events, want %d", sec, len(ls), rate)
				}
				for k, l := range ls {
					e, err := parseEvent(tc.format, l)
					if err != nil {
						t.Fatalf("second %d event %d: %v\n%s", sec, k, err, l)
					}
					if !uuidRE.MatchString(e.ad) {
						t.Errorf("ad id %q not a UUID", e.ad)
					}
					if _, ok := c.CampaignOf(e.ad); !ok {
						t.Errorf("ad id %q not in mapping", e.ad)
					}
					if !evTypes[e.eventType] {
						t.Errorf("event type %q", e.eventType)
					}
					if want := testStart + int64(1000*sec) + int64(k*1000/rate); e.ts != want {
						t.Errorf("ts %d, want %d", e.ts, want)
					}
					if tc.format == Full {
						if !uuidRE.MatchString(e.user) || !users[e.user] {
							t.Errorf("user id %q not a pool UUID", e.user)
						}
						if !uuidRE.MatchString(e.page) || !pages[e.page] {
							t.Errorf("page id %q not a pool UUID", e.page)
						}
						if !adTypes[e.adType] {
							t.Errorf("ad type %q", e.adType)
						}
					}
				}
			}
		})
	}
}

func TestEventTimes(t *testing.T) {
	c := NewCampaigns(1)
	for _, rate := range []int{1, 2, 3, 7, 999, 1000, 1001, 4096, 30_000} {
		for _, f := range []Format{Full, Compact} {
			t.Run(fmt.Sprintf("%v/%d", f, rate), func(t *testing.T) {
				g := NewGenerator(c, 3, testStart, f)
				for sec := range 3 {
					if g.Second() != sec {
						t.Fatalf("Second() = %d, want %d", g.Second(), sec)
					}
					base := testStart + int64(1000*sec)
					ls := lines(g.AppendSecond(nil, rate))
					if len(ls) != rate {
						t.Fatalf("%d events, want %d", len(ls), rate)
					}
					lo, hi := int64(1000/rate), int64((1000+rate-1)/rate)
					prev := int64(-1)
					for k, l := range ls {
						e, err := decodeEvent(f, l)
						if err != nil {
							t.Fatal(err)
						}
						if e.ts < base || e.ts > base+999 {
							t.Fatalf("event %d at %d outside second [%d, %d]", k, e.ts, base, base+999)
						}
						if want := base + int64(k)*1000/int64(rate); e.ts != want {
							t.Fatalf("event %d at %d, want %d", k, e.ts, want)
						}
						if prev >= 0 {
							// Periodic: gaps are the period 1000/rate ms truncated or rounded up.
							if d := e.ts - prev; d < lo || d > hi {
								t.Fatalf("gap %d ms, want in [%d, %d]", d, lo, hi)
							}
						} else if e.ts != base {
							t.Fatalf("first event at %d, want %d", e.ts, base)
						}
						prev = e.ts
					}
				}
			})
		}
	}
	t.Run("zero rate advances", func(t *testing.T) {
		g := NewGenerator(c, 3, testStart, Compact)
		if out := g.AppendSecond(nil, 0); len(out) != 0 {
			t.Error("rate 0 produced output")
		}
		if out := g.AppendSecond(nil, -5); len(out) != 0 {
			t.Error("rate -5 produced output")
		}
		e, err := parseEvent(Compact, lines(g.AppendSecond(nil, 1))[0])
		if err != nil || e.ts != testStart+2000 {
			t.Errorf("after two empty seconds: ts %d, %v", e.ts, err)
		}
	})
}

// chi2Crit is the upper 0.1 % point of χ²(df) by Wilson–Hilferty.
func chi2Crit(df int) float64 {
	const z = 3.09
	d := float64(df)
	v := 2 / (9 * d)
	return d * math.Pow(1-v+z*math.Sqrt(v), 3)
}

func chi2(counts []int, total int) float64 {
	exp := float64(total) / float64(len(counts))
	var s float64
	for _, n := range counts {
		s += (float64(n) - exp) * (float64(n) - exp) / exp
	}
	return s
}

func TestDistributions(t *testing.T) {
	c := NewCampaigns(11)
	g := NewGenerator(c, 12, testStart, Full)
	userIdx, pageIdx := map[string]int{}, map[string]int{}
	for i, u := range g.users {
		userIdx[u] = i
	}
	for i, p := range g.pages {
		pageIdx[p] = i
	}
	const seconds, rate = 20, 10_000
	var (
		users, pages = make([]int, NumUsers), make([]int, NumPages)
		ads          = make([]int, NumAds)
		camps        = make([]int, NumCampaigns)
		adTypes      = make([]int, len(AdTypes))
		evTypes      = make([]int, len(EventTypes))
		n            int
		sizeMin      = math.MaxInt
		sizeMax      int
		sizeSum      int
	)
	buf := make([]byte, 0, 300*rate)
	for range seconds {
		buf = g.AppendSecond(buf[:0], rate)
		for _, l := range lines(buf) {
			e, err := decodeEvent(Full, l)
			if err != nil {
				t.Fatal(err)
			}
			n++
			users[userIdx[e.user]]++
			pages[pageIdx[e.page]]++
			ai, _ := c.AdIndex(e.ad)
			ads[ai]++
			camps[CampaignIndex(ai)]++
			adTypes[slices.Index(AdTypes[:], e.adType)]++
			evTypes[slices.Index(EventTypes[:], e.eventType)]++
			sizeMin, sizeMax, sizeSum = min(sizeMin, len(l)), max(sizeMax, len(l)), sizeSum+len(l)
		}
	}
	pView := float64(evTypes[0]) / float64(n)
	t.Logf("%d events: P(view) = %.5f", n, pView)
	if sd := math.Sqrt(1.0 / 3 * 2 / 3 / float64(n)); math.Abs(pView-1.0/3) > 4*sd {
		t.Errorf("P(view) = %.5f, want 1/3 ± %.5f", pView, 4*sd)
	}
	for _, tc := range []struct {
		name   string
		counts []int
	}{
		{"campaign", camps}, {"ad", ads}, {"user", users}, {"page", pages},
		{"ad_type", adTypes}, {"event_type", evTypes},
	} {
		x, crit := chi2(tc.counts, n), chi2Crit(len(tc.counts)-1)
		t.Logf("%s: χ² = %.1f (df %d, 0.1%% critical %.1f)", tc.name, x, len(tc.counts)-1, crit)
		if x > crit {
			t.Errorf("%s: χ² = %.1f > %.1f (df %d)", tc.name, x, crit, len(tc.counts)-1)
		}
	}
	// 240 fixed bytes + ad_type (4–16) + event_type (4–8); mean 253.07.
	mean := float64(sizeSum) / float64(n)
	if sizeMin != 248 || sizeMax != 264 || math.Abs(mean-(240+37.0/5+17.0/3)) > 0.1 {
		t.Errorf("Full size min %d max %d mean %.2f, want 248, 264, 253.07", sizeMin, sizeMax, mean)
	}
}

func gen(cseed, gseed uint64, f Format) []byte {
	g := NewGenerator(NewCampaigns(cseed), gseed, testStart, f)
	var out []byte
	for _, r := range []int{10, 1000, 333} {
		out = g.AppendSecond(out, r)
	}
	return out
}

func TestDeterminism(t *testing.T) {
	for _, f := range []Format{Full, Compact} {
		t.Run(f.String(), func(t *testing.T) {
			for _, tc := range []struct {
				name         string
				cseed, gseed uint64
				same         bool
			}{
				{"same seeds", 1, 2, true},
				{"other generator seed", 1, 3, false},
				{"other campaigns seed", 4, 2, false},
			} {
				if eq := bytes.Equal(gen(1, 2, f), gen(tc.cseed, tc.gseed, f)); eq != tc.same {
					t.Errorf("%s: equal = %v, want %v", tc.name, eq, tc.same)
				}
			}
		})
	}
	// Both formats carry the same events for a seed.
	full, compact := lines(gen(5, 6, Full)), lines(gen(5, 6, Compact))
	if len(full) != len(compact) {
		t.Fatalf("%d vs %d events", len(full), len(compact))
	}
	for i := range full {
		a, _ := parseEvent(Full, full[i])
		b, _ := parseEvent(Compact, compact[i])
		if a.ts != b.ts || a.ad != b.ad || a.eventType != b.eventType {
			t.Fatalf("event %d differs: %+v vs %+v", i, a, b)
		}
	}
}

// TestGolden pins the first Full event for seeds (1, 2), guarding
// byte-determinism across Go releases and refactors.
func TestGolden(t *testing.T) {
	g := NewGenerator(NewCampaigns(1), 2, testStart, Full)
	sc := bufio.NewScanner(bytes.NewReader(g.AppendSecond(nil, 2)))
	sc.Scan()
	if got := sc.Text(); got != golden {
		t.Errorf("first event\n got %s\nwant %s", got, golden)
	}
}

const golden = `{"user_id": "5d0fb407-1d2f-4712-8e74-25981992e485", "page_id": "8beef1e8-02e8-4458-ba6c-2af5ab37fc10", "ad_id": "4ee63896-7547-407e-8c09-d3d5a9ba2899", "ad_type": "mobile", "event_type": "click", "event_time": "1630930000000", "ip_address": "1.2.3.4"}`

func TestNoAllocs(t *testing.T) {
	for _, f := range []Format{Full, Compact} {
		g := NewGenerator(NewCampaigns(1), 2, testStart, f)
		buf := make([]byte, 0, 300*10_000)
		if a := testing.AllocsPerRun(20, func() { buf = g.AppendSecond(buf[:0], 10_000) }); a != 0 {
			t.Errorf("%v: %.1f allocs per second of 10 000 events", f, a)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, f := range []Format{Full, Compact} {
		if got, err := ParseFormat(f.String()); err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %v, %v", f.String(), got, err)
		}
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Error("ParseFormat(xml) ok")
	}
	defer func() {
		if recover() == nil {
			t.Error("NewGenerator with bad format did not panic")
		}
	}()
	NewGenerator(NewCampaigns(1), 1, 0, Format(9))
}

// BenchmarkAppendSecond measures generation plus encoding of 100 000
// events per call on one goroutine; run with -cpu 1 for one core.
func BenchmarkAppendSecond(b *testing.B) {
	const rate = 100_000
	for _, f := range []Format{Full, Compact} {
		b.Run(f.String(), func(b *testing.B) {
			g := NewGenerator(NewCampaigns(1), 2, testStart, f)
			buf := make([]byte, 0, 300*rate)
			b.ReportAllocs()
			calls := 0
			for b.Loop() {
				buf = g.AppendSecond(buf[:0], rate)
				calls++
			}
			ev := float64(calls) * rate
			b.ReportMetric(ev/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(len(buf))/rate, "B/event")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/ev, "ns/event")
		})
	}
}
