package app

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/internal/suggest"
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
		if takesValue(cmd, name) {
			if i+1 == len(args) {
				// its value is missing: moved before the positionals it
				// would take one of them as its value, so leave them out
				// and let the parser say that the flag needs a value
				return append(out, flags...)
			}
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

// commandLineError is a command line streamtwin cannot take: an unknown
// flag or command, a flag value that does not parse. It prints as one line
// naming the command, with a suggestion when a name is close, and a pointer
// to the command's help instead of the whole help (exit 2).
type commandLineError struct {
	cmd string // as typed, e.g. "streamtwin scenario validate"
	msg string
}

func (e *commandLineError) Error() string {
	return fmt.Sprintf("%s: %s\nsee %s --help", e.cmd, e.msg, e.cmd)
}

// onUsageError is every command's OnUsageError: urfave/cli would print
// "Incorrect Usage" and the command's whole help.
func onUsageError(c *cli.Context, err error, _ bool) error {
	return &commandLineError{cmd: c.Command.HelpName, msg: usageMessage(c.Command, err)}
}

// usageMessage rewords the flag package's complaints: --name as typed
// (the flag package says -name), the nearest flag for an unknown one.
func usageMessage(cmd *cli.Command, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag " + dashed(name)
		if s := nearest(name, flagNames(cmd)); s != "" {
			return msg + "; did you mean " + dashed(s) + "?"
		}
		// a flag of a subcommand given before it: streamtwin --seed 3 run …
		var owners []string
		for _, sub := range cmd.Subcommands {
			if slices.Contains(flagNames(sub), name) {
				owners = append(owners, sub.Name)
			}
		}
		if len(owners) > 0 {
			msg += fmt.Sprintf(" before the command; it is a flag of %s: %s %s … %s", strings.Join(owners, ", "), cmd.HelpName, owners[0], dashed(name))
		}
		return msg
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return dashed(name) + " needs a value"
	}
	// invalid value "x" for flag -seed: parse error
	if before, after, ok := strings.Cut(msg, " for flag -"); ok {
		name, why, _ := strings.Cut(after, ": ")
		return fmt.Sprintf("%s for %s: %s", before, dashed(name), why)
	}
	return msg
}

// dashed is a flag name as typed: --seed, -h.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

func flagNames(cmd *cli.Command) []string {
	var names []string
	for _, f := range cmd.Flags {
		names = append(names, f.Names()...)
	}
	if !slices.Contains(names, "help") {
		names = append(names, "help")
	}
	return names
}

// nearest is the known name a mistyped one most likely meant
// (suggest.Closest: a name it begins, --var → --variant, or a typo,
// --sed → --seed); "" if none is.
func nearest(name string, known []string) string {
	if c := suggest.Closest(name, known, 1); len(c) > 0 {
		return c[0]
	}
	return ""
}

// unknownCommand is the action of the app and of every command that only
// groups subcommands: without an argument it shows the help, as urfave/cli
// does; an argument is a command that is not there (urfave/cli would say
// "No help topic for 'rnu'" and exit 3).
func unknownCommand(c *cli.Context) error {
	if !c.Args().Present() {
		if c.Command == nil || c.Command.HelpName == c.App.HelpName {
			return cli.ShowAppHelp(c)
		}
		return cli.ShowSubcommandHelp(c)
	}
	return noSuchCommand(c.Command.HelpName, c.Args().First(), c.Command.Subcommands)
}

func noSuchCommand(parent, name string, cmds []*cli.Command) error {
	var names []string
	for _, sub := range cmds {
		if !sub.Hidden {
			names = append(names, sub.Names()...)
		}
	}
	msg := fmt.Sprintf("unknown command %q", name)
	if s := nearest(name, names); s != "" {
		msg += "; did you mean " + s + "?"
	}
	return &commandLineError{cmd: parent, msg: msg}
}

const commandNotFoundKey = "streamtwin.commandNotFound"

// friendlyCommandLine makes every command of app report a command line it
// cannot take in one line (commandLineError) instead of its help.
func friendlyCommandLine(app *cli.App) {
	app.OnUsageError = onUsageError
	if app.Action == nil {
		app.Action = unknownCommand
	}
	// `streamtwin help rnu`: urfave/cli calls this and then returns nil;
	// runApp reports the error kept here
	app.CommandNotFound = func(c *cli.Context, name string) {
		app.Metadata[commandNotFoundKey] = noSuchCommand(c.Command.HelpName, name, c.Command.Subcommands)
	}
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			c.OnUsageError = onUsageError
			if c.Action == nil && len(c.Subcommands) > 0 {
				c.Action = unknownCommand
			}
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
}
