package docgen

import "path/filepath"

// The runs the documents quote. Each runs once per Context, however many
// blocks and figures read it.

// demoRun is `make demo`: scenarios/demo.yaml with its figure, and a zoom
// on its first fault.
func demoRun(c *Context) (string, error) {
	dir := c.Out("demo")
	if _, err := c.Streamtwin("run", "scenarios/demo.yaml", "--out", dir, "--plot"); err != nil {
		return "", err
	}
	_, err := c.Streamtwin("plot", dir, "--fault", "1")
	return dir, err
}

// measured are the measured tables that evaluations of a scenario read.
var measured = map[string]string{
	"khaos-ysb": "scenarios/measured/khaos-ysb-failures.csv",
}

// evaluated runs scenarios/NAME.yaml (its variants) and evaluates them, as
// docs/khaos.md and docs/figures.md show.
func evaluated(c *Context, name string) (string, error) {
	dir := c.Out(name)
	if _, err := c.Streamtwin("run", "scenarios/"+name+".yaml", "--out", dir); err != nil {
		return "", err
	}
	args := []string{"evaluate", dir}
	if m, ok := measured[name]; ok {
		args = append(args, "--measured", m)
	}
	_, err := c.Streamtwin(args...)
	return dir, err
}

// sweptAndEvaluated runs scenarios/sweeps/NAME.yaml and evaluates the sweep
// (the autoscaling comparison of `make daedalus`).
func sweptAndEvaluated(c *Context, name string) (string, error) {
	dir := c.Out(name)
	if _, err := c.Streamtwin("sweep", "scenarios/sweeps/"+name+".yaml", "--out", dir); err != nil {
		return "", err
	}
	_, err := c.Streamtwin("evaluate", dir)
	return dir, err
}

// file is a Figure's Make for a file that run(c) writes into its folder.
func file(run func(*Context) (string, error), name string) func(*Context) (string, error) {
	return func(c *Context) (string, error) {
		dir, err := run(c)
		return filepath.Join(dir, name), err
	}
}

// named binds a run's name.
func named(run func(*Context, string) (string, error), name string) func(*Context) (string, error) {
	return func(c *Context) (string, error) { return run(c, name) }
}
