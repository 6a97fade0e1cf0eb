// Package all registers every policy, so that importing it makes all of
// them available by name to scenarios.
package all

import (
	_ "github.com/streamtwin/streamtwin/models/policy/khaos"
	_ "github.com/streamtwin/streamtwin/models/policy/optimal"
	_ "github.com/streamtwin/streamtwin/models/policy/static"
)
