package app

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/sim"
	"github.com/streamtwin/streamtwin/workloads"
)

// rateUsage ends the usage of every rate flag.
const rateUsage = "records/s; a bare number is per second, e.g. "

// parseRateFlag reads the value of a rate flag (--rate, --peak): records per
// second, as a bare number (1000) or with the unit of scenario files
// (1000/s, 2k/s, 1.5M/s; the /s may be left out, 2k). It must be positive
// and at most workloads.MaxRate. Scenario files keep requiring the unit
// (sim.ParseRate): a bare number is accepted on the command line only.
func parseRateFlag(flag, value string) (sim.Rate, error) {
	s := strings.TrimSpace(value)
	if !strings.HasSuffix(s, "/s") {
		s += "/s"
	}
	r, err := sim.ParseRate(s)
	switch {
	case err != nil:
		return 0, fmt.Errorf("--%s: invalid rate %q; give records per second, e.g. 50000, 50000/s or 50k/s", flag, value)
	case !(r > 0):
		return 0, fmt.Errorf("--%s: the rate must be positive, got %q", flag, value)
	case float64(r) > workloads.MaxRate || math.IsInf(float64(r), 0):
		return 0, fmt.Errorf("--%s: the rate must be at most %g records/s, got %q", flag, float64(workloads.MaxRate), value)
	}
	return r, nil
}

// flagsFirst lets flags follow positional arguments (`run demo.yaml --seed 2`),
// which urfave/cli v2 would otherwise treat as more positionals: it moves
// every flag of the selected command, with its value, before the positionals.
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	cmds := app.Commands
	i := 1
	var cmd *cli.Command
	for i < len(args) {
		next := findCommand(cmds, args[i])
		if next == nil {
			break
		}
		cmd = next
		out = append(out, args[i])
		cmds = cmd.Subcommands
		i++
	}
	if cmd == nil {
		return args
	}
	var flags, pos []string
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if takesValue(cmd, name) && i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return append(append(out, flags...), pos...)
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

func takesValue(cmd *cli.Command, name string) bool {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				_, isBool := f.(*cli.BoolFlag)
				return !isBool
			}
		}
	}
	return false
}

// requireFile refuses, as bad input, a file that is not there, saying
// which argument or flag named it (what: "run: scenario file",
// "calibrate: --measured"), where a bare "open …: no such file or
// directory" would not.
func requireFile(what, path string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return badInput(fmt.Errorf("%s %s: no such file", what, path))
	}
	return nil
}

// commandName is the command as typed, e.g. "scenario validate"
// (cli.Command.FullName gives only "validate" in an action).
func commandName(c *cli.Context) string {
	var names []string
	for _, x := range c.Lineage() {
		if x.Command != nil && x.Command.Name != "" && x.Command.Name != c.App.Name {
			names = append([]string{x.Command.Name}, names...)
		}
	}
	return strings.Join(names, " ")
}
