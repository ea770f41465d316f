package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/fanseal/fanseal/internal/ecdhx8"
	"github.com/fanseal/fanseal/internal/mlkem768"
	"github.com/fanseal/fanseal/internal/x25519x8"
)

// version runs fanseal version.
func version(args []string, _ io.Reader, stdout, _ io.Writer) error {
	if _, err := ParseFlags(NewFlags("version"), args, 0); err != nil {
		return err
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprint(stdout, versionText(bi, engines{x25519x8.Engine(), x25519x8.PassLanes(), ecdhx8.Engine(), ecdhx8.PassLanes(), mlkem768.Implementation()}))
	return nil
}

// versionString is the first line of fanseal version: "fanseal v1.2.3",
// what age's grammar prints for --version.
func versionString() string {
	bi, _ := debug.ReadBuildInfo()
	first, _, _ := strings.Cut(versionText(bi, engines{}), "\n")
	return first
}

// engines names the engines this build runs on this CPU: X25519's
// (x25519x8.Engine, with the lanes of a pass), P-256's and secp256k1's
// (ecdhx8.Engine, likewise), and ML-KEM-768's.
type engines struct {
	x25519    string
	lanes     int
	ecdh      string
	ecdhLanes int
	mlkem     string
}

// versionText describes the build bi (nil where the binary holds none) and
// the engines e.
func versionText(bi *debug.BuildInfo, e engines) string {
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
	case strings.Contains(","+settings["-tags"]+",", ",purego,"):
		b.WriteString("engines: none (built with -tags purego): one key agreement at a time, the standard library's\n")
	case runtime.GOARCH != "amd64":
		b.WriteString("engines: none (not amd64): one key agreement at a time, the standard library's\n")
	default:
		fmt.Fprintf(&b, "engines: X25519 %s; P-256 and secp256k1 %s; ML-KEM-768 %s\n", passes(e.x25519, e.lanes), passes(e.ecdh, e.ecdhLanes), e.mlkem)
	}
	return b.String()
}

// passes says how an engine of x25519x8 or ecdhx8 computes: its name and
// the lanes of a pass, or one at a time.
func passes(engine string, lanes int) string {
	if engine == "generic" || engine == "" {
		return "one at a time (this CPU lacks AVX2)"
	}
	return fmt.Sprintf("%s, %d a pass", engine, lanes)
}
