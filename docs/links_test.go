// Package docs holds no code: its test checks that README.md and the manual
// (docs/**/*.md) stand alone, i.e. every relative link and image resolves to
// a file inside the repository (and its #anchor to a heading there), and
// nothing points outside it (no ../shared, no /work/..., no file: URLs).
// Absolute http(s) links are citations and are not fetched.
package docs

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

func TestDocsLinksStayInRepo(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{filepath.Join(root, "README.md")}
	err = filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("found only %d markdown files under %s", len(files), root)
	}
	links := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		links += len(mdLinks(string(b)))
		for _, p := range checkMarkdown(root, f, string(b)) {
			t.Error(p)
		}
	}
	if links < 20 {
		t.Errorf("found only %d links: is the link parser broken?", links)
	}
}

// TestCheckMarkdown runs the checker on bad and good inputs in a scratch
// repository: root/README.md, root/docs/a.md, root/docs/img/x.png.
func TestCheckMarkdown(t *testing.T) {
	root := t.TempDir()
	for p, s := range map[string]string{
		"README.md":      "# Top\n",
		"docs/a.md":      "# A title\n\n## Output folders\n\n## Output folders\n\n### 2.5 Daily curve, % of the peak\n",
		"docs/img/x.png": "png",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(filepath.Dir(root), "shared.md")
	if err := os.WriteFile(outside, []byte("# x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(outside)

	for _, c := range []struct {
		name, file, text string
		want             []string // substrings of the problems, in order; none = ok
	}{
		{"relative ok", "README.md", "see [a](docs/a.md) and ![x](docs/img/x.png)", nil},
		{"anchor ok", "README.md", "[o](docs/a.md#output-folders), [o1](docs/a.md#output-folders-1)", nil},
		{"anchor with punctuation", "README.md", "[d](docs/a.md#25-daily-curve--of-the-peak)", nil},
		{"own anchor", "docs/a.md", "[t](#a-title)", nil},
		{"from docs up", "docs/a.md", "[r](../README.md) [x](img/x.png \"title\")", nil},
		{"citation", "README.md", "[paper](https://doi.org/10.15439/2022F225) <https://arxiv.org/abs/2109.02340>", nil},
		{"mailto", "README.md", "[me](mailto:a@b.c)", nil},
		{"code is not a link", "README.md", "`[x](missing.md)`\n```\n[y](missing.md)\n```\n    [z](nope.md)", nil},
		{"missing file", "README.md", "[b](docs/b.md)", []string{"README.md:1: docs/b.md: no such file"}},
		{"missing image", "docs/a.md", "\n![y](img/y.png)", []string{"docs/a.md:2: img/y.png: no such file"}},
		{"outside the repo", "README.md", "[s](../shared.md)", []string{"points outside the repository", "mentions ../shared"}},
		{"shared", "docs/a.md", "constants in [k](../../shared/reference/khaos.md)", []string{"points outside the repository", "mentions ../shared"}},
		{"absolute path", "README.md", "[w](/work/shared/DESIGN.md)", []string{"absolute path", "mentions /work/"}},
		{"file url", "README.md", "[f](file:///etc/passwd)", []string{"not a relative path or http(s) URL"}},
		{"bad anchor", "README.md", "[o](docs/a.md#outputs)", []string{"no heading #outputs in docs/a.md"}},
		{"bad own anchor", "docs/a.md", "[t](#nope)", []string{"no heading #nope in docs/a.md"}},
		{"reference link", "README.md", "[b][1]\n\n[1]: docs/missing.md", []string{"README.md:3: docs/missing.md: no such file"}},
		{"text mention", "docs/a.md", "constants in `../shared/reference/khaos.md`", []string{"mentions ../shared"}},
		{"two on a line", "README.md", "[a](x.md) [b](y.md)", []string{"x.md: no such file", "y.md: no such file"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := checkMarkdown(root, filepath.Join(root, c.file), c.text)
			if len(got) != len(c.want) {
				t.Fatalf("got %d problems %q, want %d %q", len(got), got, len(c.want), c.want)
			}
			for i, w := range c.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

// link is one link target found in a markdown file.
type link struct {
	line   int
	target string
}

var (
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refDef     = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$`)
	autoLink   = regexp.MustCompile(`<((?:https?|file|mailto):[^>\s]+)>`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
)

// mdLinks returns the link and image targets of a markdown text, outside
// fenced and indented code blocks and code spans.
func mdLinks(text string) []link {
	var out []link
	fence := ""
	for i, l := range strings.Split(text, "\n") {
		trim := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(trim, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~") {
			fence = trim[:3]
			continue
		}
		if strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") {
			continue
		}
		l = codeSpan.ReplaceAllString(l, "")
		for _, m := range inlineLink.FindAllStringSubmatch(l, -1) {
			out = append(out, link{i + 1, m[1]})
		}
		for _, m := range autoLink.FindAllStringSubmatch(l, -1) {
			out = append(out, link{i + 1, m[1]})
		}
		if m := refDef.FindStringSubmatch(l); m != nil {
			out = append(out, link{i + 1, m[1]})
		}
	}
	return out
}

// checkMarkdown returns the problems of one markdown file of the repository
// at root, each as "path:line: target: problem" with path relative to root.
func checkMarkdown(root, file, text string) []string {
	rel, _ := filepath.Rel(root, file)
	rel = filepath.ToSlash(rel)
	var probs []string
	add := func(line int, target, format string, a ...any) {
		probs = append(probs, fmt.Sprintf("%s:%d: %s: %s", rel, line, target, fmt.Sprintf(format, a...)))
	}
	for _, l := range mdLinks(text) {
		u, err := url.Parse(l.target)
		switch {
		case err != nil:
			add(l.line, l.target, "not a valid link: %v", err)
			continue
		case u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "mailto":
			continue
		case u.Scheme != "" || u.Host != "":
			add(l.line, l.target, "not a relative path or http(s) URL")
			continue
		case strings.HasPrefix(u.Path, "/"):
			add(l.line, l.target, "an absolute path; link relative to the file, inside the repository")
			continue
		}
		target := file
		if u.Path != "" {
			target = filepath.Join(filepath.Dir(file), filepath.FromSlash(u.Path))
			if r, err := filepath.Rel(root, target); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				add(l.line, l.target, "points outside the repository")
				continue
			}
			if _, err := os.Stat(target); err != nil {
				add(l.line, l.target, "no such file in the repository")
				continue
			}
		}
		if u.Fragment != "" && strings.HasSuffix(target, ".md") {
			b, err := os.ReadFile(target)
			if err != nil {
				add(l.line, l.target, "%v", err)
				continue
			}
			if !slices.Contains(anchors(string(b)), u.Fragment) {
				r, _ := filepath.Rel(root, target)
				add(l.line, l.target, "no heading #%s in %s", u.Fragment, filepath.ToSlash(r))
			}
		}
	}
	for i, l := range strings.Split(text, "\n") {
		for _, bad := range []string{"../shared", "/work/"} {
			if strings.Contains(l, bad) {
				add(i+1, bad, "mentions %s: the shared folder is not part of a clone; cite docs/reference/ instead", bad)
			}
		}
	}
	return probs
}

// anchors returns the GitHub anchors of a markdown text's headings:
// lower case, punctuation dropped, spaces to hyphens, repeats numbered.
func anchors(text string) []string {
	var out []string
	seen := map[string]int{}
	fence := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", a, n))
		} else {
			out = append(out, a)
		}
		seen[a]++
	}
	return out
}
