package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/internal/validate"
)

// DatasetsDir is where `streamtwin validate` looks for dataset folders
// when none is named.
const DatasetsDir = "validation"

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "score the twin against measured datasets under their declared protocols, beside the baselines",
		ArgsUsage: "[DATASET_DIR ...]",
		Description: "Each DATASET_DIR holds a protocol file (" + validate.ProtocolFile + ": base scenario, measured table,\n" +
			"the parameters every fit has, optional mechanisms, the held-out rows and the cross-validation) and\n" +
			"the files it names. For each, the optional mechanisms are chosen by cross-validation on the fitted\n" +
			"points, the twin is fitted, and its recovery error on the held-out points is reported beside the\n" +
			"closed form's, an OLS on every configuration column, the median's and Daedalus's model; then the\n" +
			"whole table is cross-validated as declared. Without arguments: every folder under " + DatasetsDir + "/\n" +
			"with a protocol file. Writes each dataset's result folder (" + validate.SummaryFile + " and the fit\n" +
			"report) to DATASET_DIR/result, or --out/NAME, and prints the fidelity table (docs/validation.md).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "write the result folders into OUT/NAME (default: each dataset's DIR/result)"},
			&cli.IntFlag{Name: "workers", Usage: "points simulated in parallel (default: every core)"},
		},
		Action: runValidate,
	}
}

func runValidate(c *cli.Context) error {
	dirs := c.Args().Slice()
	if len(dirs) == 0 {
		found, _ := filepath.Glob(filepath.Join(DatasetsDir, "*", validate.ProtocolFile))
		for _, f := range found {
			dirs = append(dirs, filepath.Dir(f))
		}
		if len(dirs) == 0 {
			return badInput(fmt.Errorf("validate: no dataset folder under %s/ (one holding %s); name one: streamtwin validate DIR", DatasetsDir, validate.ProtocolFile))
		}
	}
	var protocols []*validate.Protocol
	for _, d := range dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return badInput(fmt.Errorf("validate: %s is not a dataset folder (a folder holding %s)", d, validate.ProtocolFile))
		}
		p, err := validate.Load(d)
		if err != nil {
			return badInput(err)
		}
		protocols = append(protocols, p)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400) // thousands of short runs that keep nothing (as calibrate)
	}
	start := time.Now()
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "%5.0f s  %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
	}
	var sums []validate.Summary
	for _, p := range protocols {
		r, err := validate.Run(p, validate.Options{Workers: c.Int("workers"), Log: logf})
		var ie *validate.InputError
		if errors.As(err, &ie) {
			return badInput(err)
		}
		if err != nil {
			return err
		}
		out := filepath.Join(p.Dir, "result")
		if c.IsSet("out") {
			out = filepath.Join(c.String("out"), p.Name)
		}
		files, err := r.Write(out)
		if err != nil {
			return err
		}
		logf("%s: done in %.0f s → %s", p.Name, r.WallS, strings.Join(files[:1], " "))
		sums = append(sums, r.Summarize())
	}
	fmt.Print(validate.Table(sums))
	for _, t := range []string{validate.OneRunTable(sums), validate.AutoscalerTable(sums), validate.RescaleTable(sums)} {
		if strings.Count(t, "\n") > 2 {
			fmt.Print("\n" + t)
		}
	}
	fmt.Fprintf(os.Stderr, "validated %d dataset(s) in %.0f s\n", len(sums), time.Since(start).Seconds())
	return nil
}
