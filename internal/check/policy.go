package check

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/streamtwin/streamtwin/internal/decode"
	"github.com/streamtwin/streamtwin/internal/scenario"
	"github.com/streamtwin/streamtwin/models/policy"
)

// policyExample is what a --policy looks like.
const policyExample = "e.g. --policy '{name: static, interval: 30s}' or --policy @policy.yaml"

// ParsePolicy reads the policy under test: a policy section in YAML (what
// a scenario's policy: holds), or @FILE for one in a file. It is decoded
// by the scenario package (scenario.PolicySpec, so every form a scenario
// accepts is accepted) and checked by the policy it names, and returned as
// one line of flow YAML, the value of a scenario.Set of "policy".
func ParsePolicy(spec string) (string, error) {
	where, data := "--policy", []byte(spec)
	if file, ok := strings.CutPrefix(spec, "@"); ok {
		b, err := os.ReadFile(file)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", inputErr(fmt.Errorf("--policy @%s: no such file", file))
		case err != nil:
			return "", inputErr(fmt.Errorf("--policy @%s: %w", file, err))
		}
		where, data = "--policy "+file, b
	}
	if strings.TrimSpace(string(data)) == "" {
		return "", inputErr(fmt.Errorf("%s is empty: give a policy section, %s", where, policyExample))
	}
	ps, err := decodePolicy(data)
	if err != nil {
		return "", inputErr(fmt.Errorf("%s: %s (%s)", where, policyMessage(err), policyExample))
	}
	v, err := ps.MarshalYAML()
	if err != nil {
		return "", inputErr(fmt.Errorf("%s: %w", where, err))
	}
	b, err := yaml.MarshalWithOptions(v, yaml.Flow(true))
	if err != nil {
		return "", inputErr(fmt.Errorf("%s: %w", where, err))
	}
	text := strings.TrimSpace(string(b))
	// what the scenarios get is checked, not what was typed
	again, err := decodePolicy([]byte(text))
	if err == nil {
		err = policy.Validate(again.Name, again.Node)
	}
	switch {
	case errors.Is(err, policy.ErrNeedsProfile):
		// profile.InlineModels makes models for a scenario's own policy,
		// read from its file; a swapped-in one must bring them
		return "", inputErr(fmt.Errorf("%s: policy %s has no models, and check does not profile a swapped-in policy: give it profile: (a models.json written by streamtwin profile SCENARIO) or models:", where, again.Name))
	case err != nil:
		return "", inputErr(fmt.Errorf("%s: %s", where, policyMessage(err)))
	}
	return text, nil
}

// decodePolicy decodes a policy section through the scenario package.
func decodePolicy(data []byte) (scenario.PolicySpec, error) {
	var ps scenario.PolicySpec
	if err := yaml.Unmarshal(data, &ps); err != nil {
		return ps, err
	}
	if ps.Name == "" { // an empty or null document: UnmarshalYAML never ran
		return ps, errors.New("a policy section is a mapping with a name")
	}
	return ps, nil
}

// policyMessage is err without the line of the one-line --policy text:
// the field and the message.
func policyMessage(err error) string {
	var pe *decode.PosError
	if errors.As(err, &pe) {
		return decode.FieldName(pe.Path) + ": " + pe.Msg
	}
	return decode.YAMLMessage(err)
}
