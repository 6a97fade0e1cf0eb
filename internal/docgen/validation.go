package docgen

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/streamtwin/streamtwin/internal/validate"
)

// validationDatasets are the dataset folders of `make validation`, in the
// order docs/validation.md lists them: the recovery datasets (each with a
// figure) first.
var validationDatasets = append(slices.Clone(recoveryDatasets), "demeter-cars-operator", "demeter-cars-reactive", "live-rescales")

var recoveryDatasets = []string{"khaos-ysb", "live-traffic", "live-khaos", "demeter-cars-profiles"}

// validationBlocks are the generated blocks of docs/validation.md: the
// fidelity table and each dataset's protocol and fit, read from the result
// folders `make validation` commits (validation/NAME/result).
func validationBlocks() []Block {
	return []Block{
		{"validation table", summaryTable(validate.Table)},
		{"validation details", validationDetails},
		{"validation autoscaler table", summaryTable(validate.AutoscalerTable)},
		{"validation rescale table", summaryTable(validate.RescaleTable)},
		{"validation one-run table", summaryTable(validate.OneRunTable)},
	}
}

// validationFigures are each dataset's measured-against-predicted
// recovery figure, copied from its result folder.
func validationFigures() []Figure {
	var figs []Figure
	for _, name := range recoveryDatasets {
		figs = append(figs, Figure{"docs/figures/validation-" + name + ".png", func(c *Context) (string, error) {
			return c.Path(filepath.Join("validation", name, "result", "recovery.png")), nil
		}})
	}
	return figs
}

func validationSummaries(c *Context) ([]validate.Summary, error) {
	var sums []validate.Summary
	for _, name := range validationDatasets {
		s, err := validate.ReadSummary(c.Path(filepath.Join("validation", name, "result")))
		if err != nil {
			return nil, fmt.Errorf("%w (run make validation)", err)
		}
		sums = append(sums, s)
	}
	return sums, nil
}

func validationDetails(c *Context) (string, error) {
	sums, err := validationSummaries(c)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, s := range sums {
		if s.Autoscaler != nil || s.Rescale != nil {
			continue // validationAutoscalerTable
		}
		parts = append(parts, validate.Details(s)+fmt.Sprintf("\n![%s: measured against predicted recovery, fitted and held-out points](figures/validation-%s.png)\n", s.Title, s.Name))
	}
	return strings.TrimSuffix(strings.Join(parts, "\n"), "\n"), nil
}

// summaryTable is a block of one of validate's tables over the committed
// summaries.
func summaryTable(table func([]validate.Summary) string) func(*Context) (string, error) {
	return func(c *Context) (string, error) {
		sums, err := validationSummaries(c)
		if err != nil {
			return "", err
		}
		return strings.TrimSuffix(table(sums), "\n"), nil
	}
}
