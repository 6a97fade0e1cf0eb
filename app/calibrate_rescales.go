package app

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/streamtwin/streamtwin/internal/calibrate"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/results/measure"
	"github.com/streamtwin/streamtwin/results/textfmt"
)

func calibrateRescalesCommand() *cli.Command {
	return &cli.Command{
		Name:  "rescales",
		Usage: "fit the twin's rescale delay and deploy time per direction to measured rescales and report the held-out error per rescale",
		Description: "--measured: the rescales of one run as `streamtwin results rescales` writes them (at_s, from, to,\n" +
			"input_rate, delay_s, downtime_s, recovery_s), e.g. of `make live-rescale-profile`. The measured\n" +
			"schedule (its rescales as actions, its input rates) is simulated on --scenario's job in checkpoint\n" +
			"mode, and each direction's " + strings.Join(rescaleParamNames(), ", ") + " fitted by Nelder–Mead to the\n" +
			"squared errors of delay and downtime (the recovery is predicted). Then each rescale is left out once, the fit\n" +
			"repeated without it and the rescale predicted; the baseline predicts it by the mean of the other\n" +
			"rescales of its direction. Writes --report DIR/rescales.csv (per rescale: measured, fitted, held-out\n" +
			"and baseline values and errors) and DIR/report.md; --out writes --scenario with the fitted values.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "scenario", Usage: "base scenario file (its job, Kafka and cluster)", Required: true},
			&cli.StringFlag{Name: "measured", Usage: "measured rescales (CSV of `streamtwin results rescales`)", Required: true},
			&cli.StringFlag{Name: "report", Usage: "report folder to write", Required: true},
			&cli.StringFlag{Name: "out", Usage: "write the base scenario with the fitted rescale values here"},
			&cli.IntFlag{Name: "workers", Value: 1, Usage: "leave-one-out folds fitted at once"},
			&cli.IntFlag{Name: "max-evaluations", Usage: "bound on the simulations per direction and fit (default 100 per parameter)"},
		},
		Action: runCalibrateRescales,
	}
}

func rescaleParamNames() []string {
	var n []string
	for _, p := range calibrate.RescaleParams {
		n = append(n, p.Name)
	}
	return n
}

func runCalibrateRescales(c *cli.Context) error {
	if c.NArg() > 0 {
		return badInput(fmt.Errorf("calibrate rescales takes flags only (got %q); e.g. streamtwin calibrate rescales --scenario BASE.yaml --measured rescales.csv --report DIR", c.Args().First()))
	}
	for _, flag := range []string{"scenario", "measured"} {
		if err := requireFile("calibrate rescales: --"+flag, c.String(flag)); err != nil {
			return err
		}
	}
	path := c.String("scenario")
	src, err := os.ReadFile(path)
	if err != nil {
		return badInput(err)
	}
	base, err := scenario.ParseRun(path, src, "", nil)
	if err != nil {
		return badInput(err)
	}
	f, err := os.Open(c.String("measured"))
	if err != nil {
		return badInput(err)
	}
	ms, err := measure.ReadRescalesCSV(f)
	f.Close()
	if err != nil {
		return badInput(fmt.Errorf("%s: %w", c.String("measured"), err))
	}
	if c.Int("workers") < 1 {
		return badInput(errors.New("--workers must be ≥ 1"))
	}
	r, err := calibrate.CalibrateRescales(base, ms, calibrate.RescaleOptions{Workers: c.Int("workers"), MaxEvaluations: c.Int("max-evaluations")})
	if err != nil {
		return err
	}
	cmd := "streamtwin calibrate rescales --scenario " + path + " --measured " + c.String("measured") + " --report " + c.String("report")
	if out := c.String("out"); out != "" {
		cmd += " --out " + out
	}
	info := calibrate.RescaleReportInfo{Scenario: path, Measured: c.String("measured"), Command: cmd}
	written, err := calibrate.WriteRescaleReport(c.String("report"), r, info)
	if err != nil {
		return err
	}
	if out := c.String("out"); out != "" {
		if err := calibrate.WriteRescaleScenario(out, src, r, info); err != nil {
			return err
		}
		written = append(written, out)
	}
	fmt.Println(r.RescaleLine())
	for _, d := range []string{calibrate.DirectionUp, calibrate.DirectionDown} {
		t, m := r.HeldOutErrors(d)
		fmt.Printf("%s (%d): held-out mean absolute error, twin: delay %s s, downtime %s s, recovery %s s; mean of the others: %s, %s, %s s\n", d, t.N,
			textfmt.Number(t.DelayS, 2), textfmt.Number(t.DowntimeS, 2), textfmt.Number(t.RecoveryS, 2),
			textfmt.Number(m.DelayS, 2), textfmt.Number(m.DowntimeS, 2), textfmt.Number(m.RecoveryS, 2))
	}
	for _, w := range written {
		fmt.Println("wrote", w)
	}
	return nil
}
