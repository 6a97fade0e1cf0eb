package driver

import (
	"fmt"
	"testing"

	"github.com/streamtwin/streamtwin/results"
	"github.com/streamtwin/streamtwin/workloads/ysb"
)

func TestAuditWindows(t *testing.T) {
	a, b := windowKey{"a", 10_000}, windowKey{"b", 10_000}
	a2, open := windowKey{"a", 20_000}, windowKey{"a", 30_000}
	expected := map[windowKey]int64{a: 5, b: 3, a2: 4}
	tests := []struct {
		name    string
		emitted []windowCount
		want    results.SinkAudit
	}{
		{"exact", []windowCount{{a, 5}, {b, 3}, {a2, 4}},
			results.SinkAudit{RecordsIn: 12, RecordsOut: 12, Windows: 3}},
		{"a window lost", []windowCount{{a, 5}, {a2, 4}},
			results.SinkAudit{RecordsIn: 12, RecordsOut: 9, RecordsLost: 3, Windows: 3, WindowsMissing: 1,
				FirstMissingEndMs: 10_000, LastMissingEndMs: 10_000}},
		{"a window emitted twice (at-least-once replay)", []windowCount{{a, 5}, {b, 3}, {b, 3}, {a2, 4}},
			results.SinkAudit{RecordsIn: 12, RecordsOut: 15, RecordsDuplicated: 3, Windows: 3, WindowsDuplicated: 1}},
		{"a count short and one long", []windowCount{{a, 4}, {b, 3}, {a2, 6}},
			results.SinkAudit{RecordsIn: 12, RecordsOut: 13, RecordsLost: 1, RecordsDuplicated: 2, Windows: 3}},
		{"a window no input fills", []windowCount{{a, 5}, {b, 3}, {a2, 4}, {windowKey{"c", 10_000}, 2}},
			results.SinkAudit{RecordsIn: 12, RecordsOut: 14, RecordsDuplicated: 2, Windows: 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			exp := map[windowKey]int64{open: 9}
			for k, v := range expected {
				exp[k] = v
			}
			tc.want.WindowsOpen, tc.want.RecordsOpen = 1, 9
			emitted := append(tc.emitted, windowCount{open, 1}) // an open window is not audited
			if got := auditWindows(exp, emitted, 20_000); got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestExpectedWindows counts views per campaign window as the job does:
// clicks and unknown ads dropped, a view at 19.999 s in the window ending
// at 20 s and one at 20 s in the next.
func TestExpectedWindows(t *testing.T) {
	c := ysb.NewCampaigns(1)
	ad, camp := c.AdID(0), c.Campaign(0)
	line := func(adID, typ string, ms int64) []byte {
		return fmt.Appendf(nil, `{"user_id": "u", "page_id": "p", "ad_id": "%s", "ad_type": "banner", "event_type": "%s", "event_time": "%d", "ip_address": "1.2.3.4"}`, adID, typ, ms)
	}
	got, last, err := expectedWindows(c, [][]byte{
		line(ad, "view", 19_999), line(ad, "view", 10_000), line(ad, "click", 15_000),
		line("not-an-ad", "view", 15_000), line(ad, "view", 20_000),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[windowKey]int64{{camp, 20_000}: 2, {camp, 30_000}: 1}
	if fmt.Sprint(got) != fmt.Sprint(want) || last != 20_000 {
		t.Errorf("got %v, last %d; want %v, 20000", got, last, want)
	}
	if _, _, err := expectedWindows(c, [][]byte{[]byte("{")}); err == nil {
		t.Error("a malformed record passed")
	}
	w, err := parseWindowCounts([][]byte{[]byte(`{"campaign_id":"x","window_end":20000,"count":7,"event_time":1,"emit_time":2}`)})
	if err != nil || len(w) != 1 || w[0] != (windowCount{windowKey{"x", 20_000}, 7}) {
		t.Errorf("parseWindowCounts = %v, %v", w, err)
	}
}
