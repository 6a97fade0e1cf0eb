package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/results"
)

// inputError marks errors caused by what the user gave us (exit code 2).
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

func badInput(err error) error { return inputError{err} }

// Main runs the streamtwin command line on os.Args and exits with its code:
// 0 success, 1 a run failed, 2 bad input. A program that registers its own
// policies (policy.Register) and then calls Main is streamtwin with those
// policies (examples/go-policy).
func Main() {
	os.Exit(Run(os.Args))
}

// Run runs the command line on args (args[0] is the program name) and
// returns the exit code, having printed any error to standard error.
func Run(args []string) int {
	// Long runs allocate steadily but keep little alive; a tighter GC target
	// halves peak memory (a 7-day run: ~150 → ~110 MiB) for no measurable
	// time. GOGC in the environment still wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
	return runApp(newApp(), args, os.Stderr)
}

// runApp runs app on args, prints any error to stderr and returns the exit
// code.
func runApp(app *cli.App, args []string, stderr io.Writer) int {
	err := app.Run(flagsFirst(app, args))
	if e, ok := app.Metadata[commandNotFoundKey].(error); ok && err == nil {
		err = e
	}
	if err == nil {
		return 0
	}
	var cle *commandLineError
	if errors.As(err, &cle) {
		fmt.Fprintln(stderr, cle) // it names the command itself
		return 2
	}
	fmt.Fprintln(stderr, "streamtwin:", err)
	var ie inputError
	var ce cli.ExitCoder
	var re *results.RefusedError // an output folder that is not ours, or busy
	switch {
	case errors.As(err, &ie), errors.As(err, &re), usageError(err):
		return 2
	case errors.As(err, &ce):
		return ce.ExitCode()
	}
	return 1
}

// newApp is the streamtwin command line: every command, subcommand and flag.
func newApp() *cli.App {
	cli.FlagStringer = flagHelp
	app := &cli.App{
		Name:  "streamtwin",
		Usage: "a discrete-event twin of Flink + Kafka deployments",
		Commands: []*cli.Command{
			runCommand(),
			sweepCommand(),
			scenarioCommand(),
			resultsCommand(),
			plotCommand(),
			workloadCommand(),
			compareCommand(),
			checkCommand(),
			evaluateCommand(),
			calibrateCommand(),
			validateCommand(),
			profileCommand(),
			gymCommand(),
			liveCommand(),
		},
		ExitErrHandler: func(*cli.Context, error) {}, // main reports errors itself
		Metadata:       map[string]any{},
	}
	friendlyCommandLine(app)
	return app
}

// urfaveFlagHelp is urfave/cli's help line of a flag, which flagHelp trims.
var urfaveFlagHelp = cli.FlagStringer

// flagHelp is a flag's help line showing its default once: urfave/cli
// appends "(default: VALUE)" to every flag with a value, even when the
// usage already says what the default is (--seed: "default: the scenario's
// seed (default: 0)"), and "(default: false)" to every switch.
func flagHelp(f cli.Flag) string {
	line := urfaveFlagHelp(f)
	df, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return line
	}
	_, isBool := f.(*cli.BoolFlag)
	def := df.GetDefaultText()
	if isBool && def == "false" || strings.Contains(df.GetUsage(), "default") {
		line = strings.Replace(line, " (default: "+def+")", "", 1)
	}
	return line
}

// usageError tells urfave/cli's own complaints about the command line that
// reach no OnUsageError (it exports no type for them): a missing required
// flag. They are bad input, exit 2. (An unknown flag or a value that does
// not parse is a commandLineError.)
func usageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"Required flag", "Required flags"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
