package all

import (
	_ "github.com/streamtwin/streamtwin/models/policy/autoscaler"
	_ "github.com/streamtwin/streamtwin/models/policy/daedalus"
	_ "github.com/streamtwin/streamtwin/models/policy/ds2"
	_ "github.com/streamtwin/streamtwin/models/policy/external"
	_ "github.com/streamtwin/streamtwin/models/policy/hpa"
	_ "github.com/streamtwin/streamtwin/models/policy/khaos"
	_ "github.com/streamtwin/streamtwin/models/policy/optimal"
	_ "github.com/streamtwin/streamtwin/models/policy/static"
)
