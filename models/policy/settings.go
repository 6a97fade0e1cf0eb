package policy

import (
	"fmt"
	"math/rand/v2"

	"github.com/goccy/go-yaml/ast"
)

// Problem is what is wrong with one of a policy's settings. Field is its
// path below the policy section (target; of settings checked together,
// the first); Msg is the whole message, which is what Error returns.
type Problem struct {
	Field, Msg string
}

func (p *Problem) Error() string { return p.Msg }

// Problemf is the problem of field, with the message format makes of args.
func Problemf(field, format string, args ...any) Problem {
	return Problem{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Check is the error of a policy's settings given the problems their
// validate found, in the order it checks them: the first, or nil.
func Check(problems []Problem) error {
	if len(problems) == 0 {
		return nil
	}
	return &problems[0]
}

// RegisterSettings registers a policy built from its settings alone (no
// random stream): its section is decoded strictly over defaults() and
// handed to build, which validates the settings (the package's New).
func RegisterSettings[S any, P Policy](name string, defaults func() S, build func(S) (P, error)) {
	Register(name, func(node ast.Node, _ *rand.Rand) (Policy, error) {
		s := defaults()
		if err := Decode(node, &s); err != nil {
			return nil, err
		}
		p, err := build(s)
		if err != nil {
			return nil, err
		}
		return p, nil
	})
}
