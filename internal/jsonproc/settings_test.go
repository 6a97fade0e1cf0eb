package jsonproc

import (
	"strings"
	"testing"
	"time"
)

func TestSettingsWithDefaults(t *testing.T) {
	s, err := Settings{Command: []string{"python3", "p.py"}}.WithDefaults("policy.external", "[python3, p.py]", time.Second, 10*time.Second)
	if err != nil || s.Timeout != 1 || s.StartTimeout != 10 {
		t.Errorf("defaults: %+v, %v", s, err)
	}
	given, _ := Settings{Command: []string{"x"}, Timeout: 3, StartTimeout: 4}.WithDefaults("f", "", time.Second, time.Second)
	if given.Timeout != 3 || given.StartTimeout != 4 {
		t.Errorf("given timeouts replaced: %+v", given)
	}
	for _, tc := range []struct {
		s    Settings
		want string
	}{
		{Settings{}, "policy.external.command: missing; the process to run, e.g. [python3, p.py]"},
		{Settings{Command: []string{""}}, "policy.external.command: missing"},
		{Settings{Command: []string{"x"}, Timeout: -1}, "policy.external.timeout must not be negative"},
		{Settings{Command: []string{"x"}, StartTimeout: -2}, "policy.external.start_timeout must not be negative"},
	} {
		if _, err := tc.s.WithDefaults("policy.external", "[python3, p.py]", time.Second, time.Second); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.want)
		}
	}
}
