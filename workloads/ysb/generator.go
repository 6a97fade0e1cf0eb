package ysb

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// Format selects the line encoding of the generated events.
type Format uint8

const (
	// Full is core.clj's original 7-string-field JSON, byte for byte.
	Full Format = iota
	// Compact is {"ts":<event time ms>,"id":"<ad_id>","et":"<event type>"}.
	Compact
)

func (f Format) String() string {
	switch f {
	case Full:
		return "full"
	case Compact:
		return "compact"
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// ParseFormat maps "full" / "compact" to a Format.
func ParseFormat(s string) (Format, error) {
	switch s {
	case "full":
		return Full, nil
	case "compact":
		return Compact, nil
	}
	return 0, fmt.Errorf("ysb: unknown format %q (want full or compact)", s)
}

// Value sets of core.clj, in its order.
var (
	AdTypes    = [...]string{"banner", "modal", "sponsored-search", "mail", "mobile"}
	EventTypes = [...]string{"view", "click", "purchase"}
)

// NumUsers and NumPages are the sizes of the run-mode pools of pre-made
// user and page UUIDs.
const (
	NumUsers = 100
	NumPages = 100
)

// Generator produces the run-mode event stream second by second. It is not
// safe for concurrent use; use one Generator (seed) per producer.
type Generator struct {
	src     *rand.PCG
	c       *Campaigns
	format  Format
	startMs int64
	second  int64

	users [NumUsers]string
	pages [NumPages]string

	// Precomputed byte fragments, so one event is a handful of copies plus
	// one integer formatting.
	fullUser  [NumUsers]string                      // {"user_id": "<uuid>
	fullPage  [NumPages]string                      // ", "page_id": "<uuid>
	fullAd    [NumAds]string                        // ", "ad_id": "<uuid>
	fullTypes [len(AdTypes)][len(EventTypes)]string // ", "ad_type": "…", "event_type": "…", "event_time": "
	compactAd [NumAds]string                        // ,"id":"<uuid>","et":"
	compactEt [len(EventTypes)]string               // view"}\n
}

const (
	fullSuffix    = "\", \"ip_address\": \"1.2.3.4\"}\n"
	compactPrefix = `{"ts":`
)

// NewGenerator returns a generator whose second 0 starts at startMs (epoch
// milliseconds). The 100 user and 100 page UUIDs are drawn from seed first,
// as core.clj makes them once at run start; events follow.
func NewGenerator(c *Campaigns, seed uint64, startMs int64, format Format) *Generator {
	if c == nil {
		panic("ysb: nil Campaigns")
	}
	if format != Full && format != Compact {
		panic("ysb: invalid " + format.String())
	}
	g := &Generator{src: rand.NewPCG(seed, generatorStream), c: c, format: format, startMs: startMs}
	for i := range g.users {
		g.users[i] = newUUID(g.src)
	}
	for i := range g.pages {
		g.pages[i] = newUUID(g.src)
	}
	for i, u := range g.users {
		g.fullUser[i] = `{"user_id": "` + u
	}
	for i, p := range g.pages {
		g.fullPage[i] = `", "page_id": "` + p
	}
	for i, ad := range c.ads {
		g.fullAd[i] = `", "ad_id": "` + ad
		g.compactAd[i] = `,"id":"` + ad + `","et":"`
	}
	for a, at := range AdTypes {
		for e, et := range EventTypes {
			g.fullTypes[a][e] = `", "ad_type": "` + at + `", "event_type": "` + et + `", "event_time": "`
		}
	}
	for e, et := range EventTypes {
		g.compactEt[e] = et + "\"}\n"
	}
	return g
}

// Second returns the index of the second the next AppendSecond generates.
func (g *Generator) Second() int { return int(g.second) }

// Format returns the generator's encoding.
func (g *Generator) Format() Format { return g.format }

// AppendSecond appends the events of second i (i = number of previous
// calls) and returns the extended buffer. Event k of rate (0 ≤ k < rate) has
// event_time = startMs + 1000·i + ⌊k·1000/rate⌋: core.clj's schedule
// t_k = start + k·(1e9/rate) ns truncated to ms, restarted each second so
// the rate can change per second. rate ≤ 0 emits nothing but still
// advances the second.
//
// Each event draws, in order, user, page, ad, ad type and event type,
// whatever the format, so both formats carry the same events for a seed.
func (g *Generator) AppendSecond(dst []byte, rate int) []byte {
	base := g.startMs + 1000*g.second
	g.second++
	if rate <= 0 {
		return dst
	}
	r := int64(rate)
	src := g.src
	// At high rates many events share a millisecond: format ts only when
	// it changes.
	var tsBuf [20]byte
	tsText := strconv.AppendInt(tsBuf[:0], base, 10)
	last := base
	for k := int64(0); k < r; k++ {
		if ts := base + k*1000/r; ts != last {
			last = ts
			tsText = strconv.AppendInt(tsBuf[:0], ts, 10)
		}
		u := uintn(src, NumUsers)
		p := uintn(src, NumPages)
		ad := uintn(src, NumAds)
		at := uintn(src, uint64(len(AdTypes)))
		et := uintn(src, uint64(len(EventTypes)))
		if g.format == Full {
			dst = append(dst, g.fullUser[u]...)
			dst = append(dst, g.fullPage[p]...)
			dst = append(dst, g.fullAd[ad]...)
			dst = append(dst, g.fullTypes[at][et]...)
			dst = append(dst, tsText...)
			dst = append(dst, fullSuffix...)
		} else {
			dst = append(dst, compactPrefix...)
			dst = append(dst, tsText...)
			dst = append(dst, g.compactAd[ad]...)
			dst = append(dst, g.compactEt[et]...)
		}
	}
	return dst
}
