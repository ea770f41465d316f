package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/fanseal/fanseal/internal/ecdhx8"
	"github.com/fanseal/fanseal/internal/x25519x8"
)

// version runs fanseal version.
func version(args []string, _ io.Reader, stdout, _ io.Writer) error {
	if _, err := ParseFlags(NewFlags("version"), args, 0); err != nil {
		return err
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprint(stdout, versionText(bi, x25519x8.Accelerated() && ecdhx8.Accelerated()))
	return nil
}

// versionString is the first line of fanseal version: "fanseal v1.2.3",
// what age's grammar prints for --version.
func versionString() string {
	bi, _ := debug.ReadBuildInfo()
	first, _, _ := strings.Cut(versionText(bi, false), "\n")
	return first
}

// versionText describes the build bi (nil where the binary holds none) and
// whether the IFMA path is active.
func versionText(bi *debug.BuildInfo, ifma bool) string {
	var b strings.Builder
	mod, settings := "(unknown)", map[string]string{}
	if bi != nil {
		mod = bi.Main.Version
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
	}
	fmt.Fprintf(&b, "fanseal %s\n", mod)
	if rev := settings["vcs.revision"]; rev != "" {
		fmt.Fprintf(&b, "revision %s", rev)
		if t := settings["vcs.time"]; t != "" {
			fmt.Fprintf(&b, " (%s)", t)
		}
		if settings["vcs.modified"] == "true" {
			b.WriteString(", with uncommitted changes")
		}
		b.WriteString("\n")
	} else {
		b.WriteString("revision unknown: the build recorded none (go build and go install in a git clone record it, unless -buildvcs=false; see go help buildvcs)\n")
	}
	fmt.Fprintf(&b, "%s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	switch {
	case ifma:
		b.WriteString("IFMA path: active (AVX-512 IFMA: eight X25519, P-256 or secp256k1 multiplications per pass)\n")
	case strings.Contains(","+settings["-tags"]+",", ",purego,"):
		b.WriteString("IFMA path: inactive (built with -tags purego)\n")
	case runtime.GOARCH != "amd64":
		b.WriteString("IFMA path: inactive (not amd64)\n")
	default:
		b.WriteString("IFMA path: inactive (this CPU lacks AVX-512 IFMA)\n")
	}
	return b.String()
}
