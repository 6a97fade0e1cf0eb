package workloads

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseTrace feeds arbitrary bytes to the text trace reader (make fuzz;
// plain go test replays the seeds and testdata/fuzz/). A trace it accepts
// starts at 0, has strictly increasing finite times within a year and
// finite non-negative rates, writes back as `time,value` CSV that reads to the same trace, and
// renders per second within the range of its values.
func FuzzParseTrace(f *testing.F) {
	for _, s := range []string{
		"second|value\n0|10\n1|20\n2|30\n",
		"time,value\n0,10\n1,10\n",
		"date,messages\n2019-10-06 22:00:00,100\n2019-10-06 22:05:00,200\n",
		"second|value\n0|10\n5|10\n3|10\n",
		"second|value\n0|10\n1|-5\n",
		"second|value\n0;10\n",
		"0|10\n1|10\n",
		"time,value\n\n  0 , 1.5 \n\n10,0\n",
		"time,value\n-1e300,1\n1e300,2\n",
		"time,value\n-1.5e308,1\n1.5e308,2\n",
		"time,value\n0,1\n1e300,2\n",
		"time,value\n0,1e308\n1,NaN\n",
		"",
	} {
		f.Add([]byte(s))
	}
	// the head of every trace the repository ships
	for _, dir := range []string{"data", "testdata", "../scenarios", "../scenarios/measured"} {
		paths, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
		for _, p := range paths {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(head(data, 40))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ParseTrace("fuzz.csv", bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.csv") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		checkTrace(t, tr)
		// CSV round trip
		var b bytes.Buffer
		b.WriteString("time_s,rate\n")
		for i := range tr.Times {
			b.WriteString(strconv.FormatFloat(tr.Times[i], 'g', -1, 64) + "," + strconv.FormatFloat(tr.Values[i], 'g', -1, 64) + "\n")
		}
		back, err := ParseTrace("back.csv", &b)
		if err != nil {
			t.Fatalf("the trace written back does not read: %v", err)
		}
		if len(back.Times) != len(tr.Times) {
			t.Fatalf("round trip: %d rows, want %d", len(back.Times), len(tr.Times))
		}
		for i := range tr.Times {
			if back.Times[i] != tr.Times[i] || back.Values[i] != tr.Values[i] {
				t.Fatalf("round trip row %d: (%v, %v), want (%v, %v)", i, back.Times[i], back.Values[i], tr.Times[i], tr.Values[i])
			}
		}
		// per-second rendering: bounded here so that each input stays fast
		last := tr.Times[len(tr.Times)-1]
		if last+tr.Step() > 1e5 {
			return
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range tr.Values {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		for _, mode := range []string{"linear", "step"} {
			ps := tr.PerSecond(mode)
			if want := int(math.Round(last + tr.Step())); len(ps) != want {
				t.Fatalf("PerSecond(%s): %d seconds, want %d", mode, len(ps), want)
			}
			for i, v := range ps {
				if !(v >= lo*(1-1e-12) && v <= hi*(1+1e-12)) {
					t.Fatalf("PerSecond(%s)[%d] = %v outside the trace's range [%v, %v]", mode, i, v, lo, hi)
				}
			}
		}
	})
}

func checkTrace(t *testing.T, tr *Trace) {
	t.Helper()
	if len(tr.Times) == 0 || len(tr.Times) != len(tr.Values) {
		t.Fatalf("%d times, %d values", len(tr.Times), len(tr.Values))
	}
	if tr.Times[0] != 0 {
		t.Fatalf("the first time is %v, want 0", tr.Times[0])
	}
	for i, x := range tr.Times {
		if math.IsNaN(x) || math.IsInf(x, 0) || (i > 0 && x <= tr.Times[i-1]) {
			t.Fatalf("time %d is %v after %v: not finite and increasing", i, x, tr.Times[max(i-1, 0)])
		}
	}
	if last := tr.Times[len(tr.Times)-1]; last > maxTraceSpan {
		t.Fatalf("the trace spans %v s, more than a year: PerSecond would allocate %v rates", last, last)
	}
	for i, v := range tr.Values {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			t.Fatalf("rate %d is %v", i, v)
		}
	}
	if s := tr.Step(); math.IsNaN(s) || math.IsInf(s, 0) || s <= 0 {
		t.Fatalf("step %v", s)
	}
}

// head is the first n lines of data.
func head(data []byte, n int) []byte {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	for i := 0; i < n && sc.Scan(); i++ {
		out.Write(sc.Bytes())
		out.WriteByte('\n')
	}
	return out.Bytes()
}
