package measure

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// TestReadRescalesCSV: what WriteRescalesCSV writes reads back (an empty
// recovery as NaN); a missing column or a bad number is refused by name.
func TestReadRescalesCSV(t *testing.T) {
	in := []Rescale{
		{AtS: 20.5, From: 1, To: 2, InputRate: 3000, DelayS: 1.5, DowntimeS: 2.25, RecoveryS: 3},
		{AtS: 65, From: 2, To: 1, InputRate: 6000, DelayS: 0, DowntimeS: 1, RecoveryS: math.NaN()},
	}
	var b bytes.Buffer
	if err := WriteRescalesCSV(&b, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadRescalesCSV(&b)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0] != in[0] || out[1].To != 1 || out[1].DowntimeS != 1 || !math.IsNaN(out[1].RecoveryS) {
		t.Errorf("read back %+v, want %+v", out, in)
	}
	for _, tc := range []struct{ name, csv, want string }{
		{"missing column", "at_s,from,to,input_rate,delay_s,downtime_s\n1,1,2,3,4,5\n", "no column recovery_s"},
		{"bad number", "at_s,from,to,input_rate,delay_s,downtime_s,recovery_s\n1,1,2,x,4,5,6\n", `input_rate "x" is not a number`},
		{"empty delay", "at_s,from,to,input_rate,delay_s,downtime_s,recovery_s\n1,1,2,3,,5,6\n", "delay_s is empty"},
		{"no change", "at_s,from,to,input_rate,delay_s,downtime_s,recovery_s\n1,2,2,3,4,5,6\n", "must be different parallelisms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadRescalesCSV(strings.NewReader(tc.csv))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}
