package sim

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"runtime/pprof"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// Attribution: how the CPU profile is read.
//
// Every sample of the run's CPU profile carries the label of the side
// whose goroutine it interrupted (goroutines inherit it from the side's
// setup and rounds); samples without one (the garbage collector's
// background workers, the profiler itself) belong to no side and are
// left out. The end-of-run checks, such as the ledger's auditor, carry a
// phase label and are left out too.
//
// A sample is cryptographic when its leaf frame (the innermost function,
// inlined frames expanded, runtime.asyncPreempt skipped) is in one of
// these packages:
//
//   - Go's crypto/... (crypto/internal/fips140/... included), vendored
//     golang.org/x/crypto and golang.org/x/crypto/...;
//   - the third-party cryptography fanseal uses: decred's secp256k1,
//     secp256k1-voi, btcec, filippo.io/edwards25519, ed25519consensus,
//     zeebo/blake3;
//   - fanseal's own cryptographic packages: the root package,
//     internal/hpke, internal/stream, internal/x25519x8, internal/ecdhx8,
//     internal/k256, ledger, kex, lthash, acs and verify.
//
// This is the flat ("self time") view by package, as `go tool pprof -top`
// gives it: memory allocation, garbage collection assists and system
// calls made on behalf of cryptographic code count as runtime, not as
// cryptography. Rules (Workload.rules) add cumulative shares: a sample
// counts for a rule when any frame of its stack matches, as
// `go tool pprof -top -cum` would show.

// cryptoPackages are the package path prefixes counted as cryptography.
var cryptoPackages = []string{
	"crypto/",
	"golang.org/x/crypto/",
	"github.com/decred/dcrd/dcrec/secp256k1/",
	"gitlab.com/yawning/secp256k1-voi",
	"github.com/btcsuite/btcd/btcec/",
	"filippo.io/edwards25519",
	"github.com/hdevalence/ed25519consensus",
	"github.com/zeebo/blake3",
	"github.com/fanseal/fanseal.",
	"github.com/fanseal/fanseal/internal/hpke.",
	"github.com/fanseal/fanseal/internal/stream.",
	"github.com/fanseal/fanseal/internal/x25519x8.",
	"github.com/fanseal/fanseal/internal/ecdhx8.",
	"github.com/fanseal/fanseal/internal/k256.",
	"github.com/fanseal/fanseal/ledger.",
	"github.com/fanseal/fanseal/kex.",
	"github.com/fanseal/fanseal/lthash.",
	"github.com/fanseal/fanseal/acs.",
	"github.com/fanseal/fanseal/verify.",
}

// isCrypto reports whether a function (by its full name, or its file for
// assembly without a package) belongs to a cryptographic package.
func isCrypto(fn, file string) bool {
	fn = strings.TrimPrefix(fn, "vendor/")
	if !strings.Contains(fn, ".") || strings.HasPrefix(fn, "_") {
		// An assembly symbol without a package: judge by its file.
		return strings.Contains(file, "/src/crypto/") || strings.Contains(file, "/golang.org/x/crypto/")
	}
	for _, p := range cryptoPackages {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// A Rule attributes samples whose stack contains a function with one of
// the prefixes (and none of the Except prefixes) to a named share.
type Rule struct {
	Name   string
	Prefix []string
	Except []string
}

func (r Rule) matches(stack []stackFrame) bool {
	hit := false
	for _, f := range stack {
		for _, p := range r.Except {
			if strings.HasPrefix(f.fn, p) {
				return false
			}
		}
		for _, p := range r.Prefix {
			if strings.HasPrefix(f.fn, p) {
				hit = true
			}
		}
	}
	return hit
}

// CPU is one side's part of the profile.
type CPU struct {
	// Seconds of CPU time sampled for the side.
	Seconds float64 `json:"seconds"`
	// Crypto is the share of the side's samples in cryptographic code
	// (see Attribution).
	Crypto float64 `json:"crypto_share"`
	// Shares are the workload's rules' cumulative shares, in order.
	Shares []Share `json:"shares,omitempty"`
}

// A Share is a named fraction of a side's CPU samples.
type Share struct {
	Name  string  `json:"name"`
	Share float64 `json:"share"`
}

// ShareOf returns the named share, or 0.
func (c *CPU) ShareOf(name string) float64 {
	if c == nil {
		return 0
	}
	for _, s := range c.Shares {
		if s.Name == name {
			return s.Share
		}
	}
	return 0
}

type stackFrame struct{ fn, file string }

type cpuSample struct {
	stack  []stackFrame // leaf first
	labels map[string]string
	ns     int64
}

type cpuProfile struct {
	samples []cpuSample
}

// attribute computes the CPU of the samples labelled side.
func (p *cpuProfile) attribute(side string, rules []Rule) *CPU {
	var total, crypto int64
	ruled := make([]int64, len(rules))
	for _, s := range p.samples {
		if s.labels[sideLabel] != side || s.labels[phaseLabel] != "" {
			continue
		}
		total += s.ns
		if leaf, ok := leafFrame(s.stack); ok && isCrypto(leaf.fn, leaf.file) {
			crypto += s.ns
		}
		for i, r := range rules {
			if r.matches(s.stack) {
				ruled[i] += s.ns
			}
		}
	}
	c := &CPU{Seconds: float64(total) / 1e9}
	if total == 0 {
		return c
	}
	c.Crypto = float64(crypto) / float64(total)
	for i, r := range rules {
		c.Shares = append(c.Shares, Share{r.Name, float64(ruled[i]) / float64(total)})
	}
	return c
}

// leafFrame returns the innermost frame that is not the asynchronous
// preemption trampoline (a signal that lands there interrupted its
// caller).
func leafFrame(stack []stackFrame) (stackFrame, bool) {
	for _, f := range stack {
		if f.fn != "runtime.asyncPreempt" {
			return f, true
		}
	}
	return stackFrame{}, false
}

// A profiler records the process's CPU profile in memory.
type profiler struct{ buf bytes.Buffer }

// startProfile starts the CPU profile; it fails if another one runs (a
// test run with -cpuprofile, say).
func startProfile() (*profiler, error) {
	p := new(profiler)
	if err := pprof.StartCPUProfile(&p.buf); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *profiler) stop() (*cpuProfile, error) {
	pprof.StopCPUProfile()
	return parseProfile(p.buf.Bytes())
}

var errProfile = errors.New("sim: malformed CPU profile")

// parseProfile decodes the gzip-compressed profile.proto that
// runtime/pprof writes: the string table, functions, locations (with
// their inlined lines) and samples with labels. It keeps the value of the
// "cpu" sample type (nanoseconds).
func parseProfile(gz []byte) (*cpuProfile, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errProfile, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errProfile, err)
	}
	type rawSample struct {
		locs   []uint64
		values []int64
		labels [][2]uint64 // key, string index
	}
	var (
		strs        []string
		types       []uint64                 // string index of each sample type
		funcs       = map[uint64][2]uint64{} // id → name, file string indexes
		locs        = map[uint64][]uint64{}  // id → function ids, leaf first
		samples     []rawSample
		errTruncate = fmt.Errorf("%w: truncated field", errProfile)
	)
	err = fields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		switch num {
		case 1: // sample_type
			return fields(v, func(n protowire.Number, _ protowire.Type, _ []byte, x uint64) error {
				if n == 1 {
					types = append(types, x)
				}
				return nil
			})
		case 2: // sample
			var s rawSample
			err := fields(v, func(n protowire.Number, t protowire.Type, v []byte, x uint64) error {
				switch n {
				case 1:
					return varints(t, v, x, func(u uint64) { s.locs = append(s.locs, u) })
				case 2:
					return varints(t, v, x, func(u uint64) { s.values = append(s.values, int64(u)) })
				case 3:
					var l [2]uint64
					err := fields(v, func(n protowire.Number, _ protowire.Type, _ []byte, x uint64) error {
						if n == 1 || n == 2 {
							l[n-1] = x
						}
						return nil
					})
					s.labels = append(s.labels, l)
					return err
				}
				return nil
			})
			samples = append(samples, s)
			return err
		case 4: // location
			var id uint64
			var fns []uint64
			err := fields(v, func(n protowire.Number, _ protowire.Type, v []byte, x uint64) error {
				switch n {
				case 1:
					id = x
				case 4: // line
					return fields(v, func(n protowire.Number, _ protowire.Type, _ []byte, x uint64) error {
						if n == 1 {
							fns = append(fns, x)
						}
						return nil
					})
				}
				return nil
			})
			locs[id] = fns
			return err
		case 5: // function
			var id uint64
			var f [2]uint64
			err := fields(v, func(n protowire.Number, _ protowire.Type, _ []byte, x uint64) error {
				switch n {
				case 1:
					id = x
				case 2:
					f[0] = x
				case 4:
					f[1] = x
				}
				return nil
			})
			funcs[id] = f
			return err
		case 6: // string_table
			if typ != protowire.BytesType {
				return errTruncate
			}
			strs = append(strs, string(v))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	str := func(i uint64) string {
		if i < uint64(len(strs)) {
			return strs[i]
		}
		return ""
	}
	value := len(types) - 1
	for i, t := range types {
		if str(t) == "cpu" {
			value = i
		}
	}
	p := &cpuProfile{samples: make([]cpuSample, 0, len(samples))}
	for _, s := range samples {
		if value < 0 || value >= len(s.values) {
			return nil, fmt.Errorf("%w: sample without a cpu value", errProfile)
		}
		cs := cpuSample{ns: s.values[value], labels: map[string]string{}}
		for _, l := range s.labels {
			cs.labels[str(l[0])] = str(l[1])
		}
		for _, id := range s.locs {
			for _, fid := range locs[id] {
				f := funcs[fid]
				cs.stack = append(cs.stack, stackFrame{str(f[0]), str(f[1])})
			}
		}
		p.samples = append(p.samples, cs)
	}
	return p, nil
}

// fields calls f for every field of the protobuf message b: v is the
// payload of a length-delimited field, x the value of a varint or fixed
// one.
func fields(b []byte, f func(protowire.Number, protowire.Type, []byte, uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%w: %v", errProfile, protowire.ParseError(n))
		}
		b = b[n:]
		var v []byte
		var x uint64
		switch typ {
		case protowire.VarintType:
			x, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			v, n = protowire.ConsumeBytes(b)
		case protowire.Fixed64Type:
			x, n = protowire.ConsumeFixed64(b)
		case protowire.Fixed32Type:
			var y uint32
			y, n = protowire.ConsumeFixed32(b)
			x = uint64(y)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("%w: %v", errProfile, protowire.ParseError(n))
		}
		b = b[n:]
		if err := f(num, typ, v, x); err != nil {
			return err
		}
	}
	return nil
}

// varints calls f for a repeated integer field, packed or not.
func varints(typ protowire.Type, v []byte, x uint64, f func(uint64)) error {
	if typ == protowire.VarintType {
		f(x)
		return nil
	}
	for len(v) > 0 {
		u, n := protowire.ConsumeVarint(v)
		if n < 0 {
			return fmt.Errorf("%w: %v", errProfile, protowire.ParseError(n))
		}
		f(u)
		v = v[n:]
	}
	return nil
}
