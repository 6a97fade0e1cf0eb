// Package live holds what the live backend of streamtwin shares: the
// versions of Flink, the Kafka connector and Kafka it runs, read from
// versions.env (embedded; the Makefile reads the same file).
//
// The live backend runs the real thing next to the twin: a Flink standalone
// session cluster (one JobManager, N TaskManagers) and a single-node Kafka
// broker in KRaft combined mode, all started from Maven jars on 127.0.0.1
// (package live/cluster), so that measured runs can be compared with
// simulated ones.
package live

import (
	_ "embed"
	"fmt"
	"strings"
)

//go:embed versions.env
var versionsEnv string

// Versions are the pinned versions of the live backend.
type Versions struct {
	Flink               string // FLINK_VERSION
	FlinkKafkaConnector string // FLINK_KAFKA_CONNECTOR_VERSION
	Kafka               string // KAFKA_VERSION
	FlinkLog4j          string // FLINK_LOG4J_VERSION
	KafkaLog4j          string // KAFKA_LOG4J_VERSION
	MavenDependency     string // MAVEN_DEPENDENCY_PLUGIN_VERSION
}

// Pinned returns the versions of versions.env. The file is embedded and
// checked by the tests, so a malformed one is a build defect: Pinned panics.
func Pinned() Versions {
	v, err := ParseVersions(versionsEnv)
	if err != nil {
		panic("live/versions.env: " + err.Error())
	}
	return v
}

// ParseVersions reads KEY=VALUE lines (blank lines and lines starting with #
// are skipped) and requires every key of Versions.
func ParseVersions(s string) (Versions, error) {
	kv, err := ParseEnv(s)
	if err != nil {
		return Versions{}, err
	}
	v := Versions{}
	for _, f := range []struct {
		key string
		dst *string
	}{
		{"FLINK_VERSION", &v.Flink},
		{"FLINK_KAFKA_CONNECTOR_VERSION", &v.FlinkKafkaConnector},
		{"KAFKA_VERSION", &v.Kafka},
		{"FLINK_LOG4J_VERSION", &v.FlinkLog4j},
		{"KAFKA_LOG4J_VERSION", &v.KafkaLog4j},
		{"MAVEN_DEPENDENCY_PLUGIN_VERSION", &v.MavenDependency},
	} {
		val, ok := kv[f.key]
		if !ok || val == "" {
			return Versions{}, fmt.Errorf("%s is not set", f.key)
		}
		*f.dst = val
	}
	return v, nil
}

// ParseEnv parses KEY=VALUE lines as written for both make and sh: no
// quotes, no spaces around '=', comments on their own lines.
func ParseEnv(s string) (map[string]string, error) {
	kv := map[string]string{}
	for i, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t") || strings.ContainsAny(v, " \t\"'#") {
			return nil, fmt.Errorf("line %d: want KEY=VALUE without spaces, quotes or comments, got %q", i+1, line)
		}
		if _, dup := kv[k]; dup {
			return nil, fmt.Errorf("line %d: %s set twice", i+1, k)
		}
		kv[k] = v
	}
	return kv, nil
}
