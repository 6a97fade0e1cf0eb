package external

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/streamtwin/streamtwin/internal/jsonproc"
	"github.com/streamtwin/streamtwin/models/forecast"
)

// Protocol is the version of docs/forecaster-protocol.md this package speaks.
const Protocol = 1

// Name is the forecaster's name until its process says another in ready.
const Name = "external"

// Settings are the forecaster process of a forecast sampler's external
// section, as a policy's (internal/jsonproc.Settings).
type Settings = jsonproc.Settings

// Defaults of Settings.
const (
	DefaultTimeout      = 5 * time.Second
	DefaultStartTimeout = 30 * time.Second
)

// Forecaster is one forecaster process. It is safe for concurrent use: the
// calls take turns on the one process.
type Forecaster struct {
	cfg Settings

	mu     sync.Mutex
	name   string // the process's name for itself, from ready
	proc   *jsonproc.Process
	call   int   // calls sent to the current process
	dead   error // why the process was stopped; nil while it serves
	closed bool
	buf    []byte
}

// New validates cfg and fills in its defaults; the process starts with the
// first Quantiles call, or Start.
func New(cfg Settings) (*Forecaster, error) {
	cfg, err := cfg.WithDefaults("forecaster external", "[python3, examples/python/numpy_forecaster.py]", DefaultTimeout, DefaultStartTimeout)
	if err != nil {
		return nil, err
	}
	return &Forecaster{cfg: cfg, name: Name}, nil
}

// Name is the process's name for itself (from its ready message, so known
// after Start or the first call), or "external".
func (f *Forecaster) Name() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.name
}

// Start starts the process, says hello and waits for ready. It is a no-op
// while a process serves; after a failure it starts a new one. Quantiles
// calls it when needed.
func (f *Forecaster) Start() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return f.closedErr()
	}
	if f.proc != nil {
		return nil
	}
	f.dead = nil
	return f.start()
}

func (f *Forecaster) start() error {
	config := f.cfg.Config
	if config == nil {
		config = map[string]any{}
	}
	hello, err := json.Marshal(struct {
		Type     string         `json:"type"`
		Protocol int            `json:"protocol"`
		Role     string         `json:"role"`
		Config   map[string]any `json:"config"`
	}{"hello", Protocol, "forecaster", config})
	if err != nil {
		f.dead = fmt.Errorf("forecaster external.config: %w", err)
		return f.dead
	}
	proc, err := f.cfg.Start()
	if err != nil {
		f.dead = fmt.Errorf("forecaster process %w", err)
		return f.dead
	}
	if err := f.hello(proc, append(hello, '\n')); err != nil {
		proc.Kill()
		f.dead = err
		return err
	}
	f.proc, f.call = proc, 0
	return nil
}

func (f *Forecaster) hello(proc *jsonproc.Process, hello []byte) error {
	if err := proc.Send(hello); err != nil {
		return fmt.Errorf("forecaster process %w", proc.Gone("at hello", err))
	}
	data, err := proc.Receive(f.cfg.StartTimeout.Std(), "at hello")
	if err != nil {
		return fmt.Errorf("forecaster process %w", err)
	}
	var r reply
	if err := jsonproc.Decode(data, &r); err != nil {
		return fmt.Errorf("forecaster process %s: its reply to hello is not valid: %v; the line: %s", proc.Argv(), err, jsonproc.Quote(data))
	}
	switch {
	case r.Type == "ready" && r.foreign() != "":
		return fmt.Errorf("forecaster process %s: its reply to hello is not valid: field %q does not belong in ready; the line: %s", proc.Argv(), r.foreign(), jsonproc.Quote(data))
	case r.Type != "ready":
		return fmt.Errorf("forecaster process %s: replied to hello with type %q; want ready; the line: %s", proc.Argv(), r.Type, jsonproc.Quote(data))
	case r.Protocol != Protocol:
		return fmt.Errorf("forecaster process %s speaks protocol %d; streamtwin speaks %d (docs/forecaster-protocol.md)", proc.Argv(), r.Protocol, Protocol)
	}
	if r.Name != "" {
		f.name = r.Name
	}
	return nil
}

// Quantiles sends one forecast request and returns the reply's quantiles:
// out[i][k] is the levels[i] quantile of step k+1 after history. It checks
// its arguments before asking (h ≥ 1; levels strictly increasing in (0, 1);
// a finite history) and the reply after: len(levels) rows of h finite
// values each, non-decreasing from one level to the next at every step.
// The first call starts the process. A process that exits or does not reply
// within Timeout is stopped, and later calls return its error until Start;
// a bad reply or an error reply fails this call only.
func (f *Forecaster) Quantiles(history []float64, h int, levels []float64) ([][]float64, error) {
	if err := checkArgs(history, h, levels); err != nil {
		return nil, fmt.Errorf("forecaster %s: %w", f.Name(), err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.closed:
		return nil, f.closedErr()
	case f.dead != nil:
		return nil, fmt.Errorf("%w (the forecaster is stopped; Start runs a new process)", f.dead)
	case f.proc == nil:
		if err := f.start(); err != nil {
			return nil, err
		}
	}
	f.call++
	at := fmt.Sprintf("at call %d", f.call)
	f.buf = request(f.buf[:0], f.call, history, h, levels)
	if err := f.proc.Send(f.buf); err != nil {
		return nil, f.fatal(fmt.Errorf("forecaster process %w", f.proc.Gone(at, err)))
	}
	data, err := f.proc.Receive(f.cfg.Timeout.Std(), at)
	if err != nil {
		return nil, f.fatal(fmt.Errorf("forecaster process %w", err))
	}
	return f.quantiles(data, h, levels)
}

// quantiles decodes and checks one reply to call f.call.
func (f *Forecaster) quantiles(data []byte, h int, levels []float64) ([][]float64, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("forecaster %s %s: reply at call %d: %s; the line: %s", f.name, f.proc.Argv(), f.call, fmt.Sprintf(format, a...), jsonproc.Quote(data))
	}
	var r reply
	if err := jsonproc.Decode(data, &r); err != nil {
		return nil, bad("not valid: %v", err)
	}
	switch r.Type {
	case "quantiles", "error":
	default:
		return nil, bad("type %q; want quantiles or error", r.Type)
	}
	if extra := r.foreign(); extra != "" {
		return nil, bad("not valid: field %q does not belong in a reply of type %q", extra, r.Type)
	}
	if r.ID != f.call {
		return nil, bad("answers call %d; want %d", r.ID, f.call)
	}
	if r.Type == "error" {
		if r.Message == "" {
			return nil, bad("an error without a message")
		}
		return nil, fmt.Errorf("forecaster %s %s cannot forecast at call %d: %s", f.name, f.proc.Argv(), f.call, r.Message)
	}
	if r.Quantiles == nil {
		return nil, bad("no quantiles")
	}
	if len(r.Quantiles) != len(levels) {
		return nil, bad("%d rows of quantiles; want one per level, %d", len(r.Quantiles), len(levels))
	}
	out := make([][]float64, len(levels))
	for i, row := range r.Quantiles {
		if len(row) != h {
			return nil, bad("quantiles[%d] (level %g) has %d values; want the horizon, %d", i, levels[i], len(row), h)
		}
		out[i] = make([]float64, h)
		for k, v := range row {
			if math.IsNaN(float64(v)) {
				return nil, bad("quantiles[%d][%d] (level %g, step %d) is null; want a number", i, k, levels[i], k+1)
			}
			out[i][k] = float64(v)
			if i > 0 && out[i][k] < out[i-1][k] {
				return nil, bad("quantiles decrease across levels at step %d: level %g is %g, below level %g's %g (sort each step's values)",
					k+1, levels[i], out[i][k], levels[i-1], out[i-1][k])
			}
		}
	}
	return out, nil
}

// fatal stops the process after err; later calls return err until Start.
func (f *Forecaster) fatal(err error) error {
	f.proc.Kill()
	f.proc, f.dead = nil, err
	return err
}

func (f *Forecaster) closedErr() error {
	return fmt.Errorf("forecaster %s %v is closed", f.name, f.cfg.Command)
}

// Close says goodbye, closes the process's input and waits up to Timeout for
// it to exit before killing it. Later calls return an error. It is
// idempotent and never fails.
func (f *Forecaster) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	if f.proc == nil {
		return nil
	}
	f.proc.Close([]byte(`{"type":"goodbye","reason":"close"}`+"\n"), f.cfg.Timeout.Std())
	f.proc = nil
	return nil
}

// checkArgs refuses what the protocol cannot carry or the Quantiler
// contract excludes, before any process is asked.
func checkArgs(history []float64, h int, levels []float64) error {
	if h < 1 {
		return fmt.Errorf("horizon %d; want at least 1 step", h)
	}
	if len(levels) == 0 {
		return errors.New("no levels; want at least one in (0, 1)")
	}
	for i, l := range levels {
		if !(l > 0 && l < 1) {
			return fmt.Errorf("levels[%d] = %g; want levels in (0, 1)", i, l)
		}
		if i > 0 && !(l > levels[i-1]) {
			return fmt.Errorf("levels %v; want them strictly increasing", levels)
		}
	}
	for i, v := range history {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("history[%d] is %g; the protocol carries finite numbers only", i, v)
		}
	}
	return nil
}

// reply is any message of the process: ready, quantiles or error.
type reply struct {
	Type      string    `json:"type"`
	Protocol  int       `json:"protocol"`
	Name      string    `json:"name"`
	ID        int       `json:"id"`
	Quantiles [][]value `json:"quantiles"`
	Message   string    `json:"message"`
}

// foreign is a field of another message type that r carries ("" if none):
// reply decodes all of them, each message may hold only its own.
func (r *reply) foreign() string {
	switch {
	case r.Protocol != 0 && r.Type != "ready":
		return "protocol"
	case r.Name != "" && r.Type != "ready":
		return "name"
	case r.ID != 0 && r.Type == "ready":
		return "id"
	case r.Quantiles != nil && r.Type != "quantiles":
		return "quantiles"
	case r.Message != "" && r.Type != "error":
		return "message"
	}
	return ""
}

// value is a float64 that decodes null as NaN (encoding/json would leave a
// plain float64 at 0), so that the check can name its place.
type value float64

func (v *value) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = value(math.NaN())
		return nil
	}
	x, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("quantile %s is out of the float64 range", b)
		}
		return fmt.Errorf("quantile %s is not a number", jsonproc.Quote(b))
	}
	*v = value(x)
	return nil
}

// request encodes one forecast message by hand (a history of a few thousand
// points costs microseconds, not an encoding/json reflection pass).
func request(b []byte, id int, history []float64, h int, levels []float64) []byte {
	b = append(b, `{"type":"forecast","id":`...)
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, `,"history":[`...)
	for i, v := range history {
		if i > 0 {
			b = append(b, ',')
		}
		b = num(b, v)
	}
	b = append(b, `],"horizon":`...)
	b = strconv.AppendInt(b, int64(h), 10)
	b = append(b, `,"levels":[`...)
	for i, l := range levels {
		if i > 0 {
			b = append(b, ',')
		}
		b = num(b, l)
	}
	return append(b, "]}\n"...)
}

// num writes a finite v as a JSON number, integers without a fraction.
func num(b []byte, v float64) []byte {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.AppendInt(b, int64(v), 10)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

var _ forecast.Quantiler = (*Forecaster)(nil)
