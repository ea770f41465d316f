package codegen

import (
	"fmt"
	"math"
	"math/bits"
	"regexp"
	"strconv"
	"strings"
)

// Interval analysis of generated assembly: CheckIntervals interprets the
// Go assembly text of a generator's output, not the generator, with a
// range of values for every vector register and every memory slot (the
// same for every lane), and reports where a VPMULUDQ input can reach
// 2^32, an addition or subtraction can wrap, a left shift can lose bits,
// or an output leaves the form its header claims.
//
// The file's header states the claims, one a line, after "//\t":
//
//	args: stride 64                    limb j of an argument at byte 64j
//	form tight: 0x3ffffff 0x2013000 … the largest value of each limb, or
//	                                   "mask" (every lane 0 or all ones);
//	                                   the list repeats past its end
//	func ladderAVX2: in k=any u=unpacked; out x2=tight z2=tight
//	func combAVX2: in d=digits table=t52@8; …  an argument's own stride
//	exact: tight                       some output reaches every limb's
//	                                   bound: the claim is not wider than
//	                                   the code
//
// Each function with a claim is interpreted from its first instruction,
// its pointer arguments (MOVQ name+off(FP)) pointing to memory whose
// limbs hold their claimed input forms. A store to an output argument
// must be within the output's form, and every limb of every output must
// be written. A load from the scratch (any argument without an input
// claim) must read what a store put there; so must a read of a register.
// The loops (a label and a later conditional jump back to it) are run to
// a fixed point: the state at the label is joined with the state at the
// jump until the join no longer grows, so that the bounds at the top of a
// loop hold for every iteration (inductively); errors are reported from
// the last, stable pass. CALL runs a static function (name<>) of the file
// in the caller's state.
//
// The values are per-lane ranges [lo, hi]; an operation's result range
// covers every result of inputs in its inputs' ranges. A few facts beyond
// ranges keep the swaps precise: a VPCMPEQQ result and 0 - b for b in
// [0, 1] are masks (each lane 0 or all ones); every value has an identity,
// kept through moves, stores and loads, so that t = (a ^ b) & mask, then
// a ^ t, is known to be a or b.
//
// At the RET of a function, every vector and mask register it wrote must
// be zero (VZEROALL, KXORW), so that none keeps a secret.
//
// It understands the instructions the engines' AVX2 and AVX-512F code
// uses, and refuses any other.
func CheckIntervals(src string) []error {
	c, err := ParseClaims(src)
	if err != nil {
		return []error{err}
	}
	p, err := parseAsm(src)
	if err != nil {
		return []error{err}
	}
	in := &interp{prog: p, claims: c, reached: map[string]map[int]uint64{}}
	for _, name := range p.order {
		if strings.HasSuffix(name, "<>") {
			continue
		}
		fc, ok := c.Funcs[name]
		if !ok {
			in.errs = append(in.errs, fmt.Errorf("%s: no claim for this function", name))
			continue
		}
		in.checkFunc(name, fc)
	}
	for name := range c.Funcs {
		if _, ok := p.funcs[name]; !ok {
			in.errs = append(in.errs, fmt.Errorf("a claim for %s, which the file does not have", name))
		}
	}
	for _, form := range c.Exact {
		for l, b := range c.Forms[form] {
			if got := in.reached[form][l]; got < b.Max {
				in.errs = append(in.errs, fmt.Errorf("form %s: limb %d is claimed up to %#x, but no output exceeds %#x", form, l, b.Max, got))
			}
		}
	}
	return in.errs
}

// Claims are what a file's header claims (see CheckIntervals).
type Claims struct {
	Stride int                  // bytes between an argument's limbs
	Forms  map[string][]Bound   // limb bounds, repeating
	Funcs  map[string]FuncClaim // by function name (without ·)
	Exact  []string             // forms some output reaches
}

// A Bound is a limb's largest value, or Mask: 0 or all ones.
type Bound struct {
	Max  uint64
	Mask bool
}

// A FuncClaim maps argument names to form names, and to the stride of
// their limbs where it is not the file's (arg=form@stride).
type FuncClaim struct {
	In, Out map[string]string
	Stride  map[string]int
}

var (
	claimArgsRe  = regexp.MustCompile(`(?m)^//\targs: stride (\d+)$`)
	claimFormRe  = regexp.MustCompile(`(?m)^//\tform (\w+): (.*)$`)
	claimFuncRe  = regexp.MustCompile(`(?m)^//\tfunc (\w+): in (.*); out (.*)$`)
	claimExactRe = regexp.MustCompile(`(?m)^//\texact: (.*)$`)
)

// ParseClaims reads the claims of an assembly file's header.
func ParseClaims(src string) (*Claims, error) {
	c := &Claims{Forms: map[string][]Bound{}, Funcs: map[string]FuncClaim{}}
	m := claimArgsRe.FindStringSubmatch(src)
	if m == nil {
		return nil, fmt.Errorf("no \"args: stride\" claim")
	}
	c.Stride, _ = strconv.Atoi(m[1])
	for _, m := range claimFormRe.FindAllStringSubmatch(src, -1) {
		var f []Bound
		for _, s := range strings.Fields(m[2]) {
			if s == "mask" {
				f = append(f, Bound{Mask: true})
				continue
			}
			v, err := strconv.ParseUint(s, 0, 64)
			if err != nil {
				return nil, fmt.Errorf("form %s: %v", m[1], err)
			}
			f = append(f, Bound{Max: v})
		}
		if len(f) == 0 {
			return nil, fmt.Errorf("form %s is empty", m[1])
		}
		c.Forms[m[1]] = f
	}
	for _, m := range claimFuncRe.FindAllStringSubmatch(src, -1) {
		fc := FuncClaim{In: map[string]string{}, Out: map[string]string{}, Stride: map[string]int{}}
		for i, list := range []string{m[2], m[3]} {
			for _, kv := range strings.Fields(list) {
				arg, form, ok := strings.Cut(kv, "=")
				if f, st, at := strings.Cut(form, "@"); at {
					n, err := strconv.Atoi(st)
					if err != nil || n <= 0 {
						return nil, fmt.Errorf("func %s: bad stride in %q", m[1], kv)
					}
					form, fc.Stride[arg] = f, n
				}
				if _, known := c.Forms[form]; !ok || !known {
					return nil, fmt.Errorf("func %s: bad claim %q", m[1], kv)
				}
				if i == 0 {
					fc.In[arg] = form
				} else {
					fc.Out[arg] = form
				}
			}
		}
		c.Funcs[m[1]] = fc
	}
	for _, m := range claimExactRe.FindAllStringSubmatch(src, -1) {
		for _, f := range strings.Fields(m[1]) {
			if _, ok := c.Forms[f]; !ok {
				return nil, fmt.Errorf("exact: no form %s", f)
			}
			c.Exact = append(c.Exact, f)
		}
	}
	return c, nil
}

// ---------------------------------------------------------------------------
// The program.

type asmIns struct {
	line int
	op   string   // mnemonic, or "" for a label
	args []string // operands in Go order (sources first)
	text string
}

type asmFunc struct {
	name   string
	code   []asmIns
	labels map[string]int // label -> index in code
}

type asmProg struct {
	funcs map[string]*asmFunc
	order []string
	data  map[string][]byte // DATA symbols, by name with <>
	known map[string][]bool // which bytes DATA set
}

var (
	textRe = regexp.MustCompile(`^TEXT [·]?([\w<>]+)\(SB\)`)
	dataRe = regexp.MustCompile(`^DATA ([\w<>]+)\+(\d+)\(SB\)/(\d+), \$(\S+)$`)
	globRe = regexp.MustCompile(`^GLOBL ([\w<>]+)\(SB\), [\w|]+, \$(\d+)$`)
)

func parseAsm(src string) (*asmProg, error) {
	p := &asmProg{funcs: map[string]*asmFunc{}, data: map[string][]byte{}, known: map[string][]bool{}}
	var fn *asmFunc
	type pending struct {
		sym  string
		off  int
		size int
		val  uint64
		line int
	}
	var datas []pending
	for i, raw := range strings.Split(src, "\n") {
		line := raw
		if k := strings.Index(line, "//"); k >= 0 {
			line = line[:k]
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if m := textRe.FindStringSubmatch(line); m != nil {
			fn = &asmFunc{name: m[1], labels: map[string]int{}}
			p.funcs[m[1]] = fn
			p.order = append(p.order, m[1])
			continue
		}
		if m := dataRe.FindStringSubmatch(line); m != nil {
			off, _ := strconv.Atoi(m[2])
			size, _ := strconv.Atoi(m[3])
			v, err := strconv.ParseUint(m[4], 0, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", i+1, err)
			}
			datas = append(datas, pending{m[1], off, size, v, i + 1})
			continue
		}
		if m := globRe.FindStringSubmatch(line); m != nil {
			size, _ := strconv.Atoi(m[2])
			p.data[m[1]] = make([]byte, size)
			p.known[m[1]] = make([]bool, size)
			continue
		}
		if strings.HasSuffix(line, ":") && !strings.Contains(line, " ") {
			if fn == nil {
				return nil, fmt.Errorf("line %d: a label outside a function", i+1)
			}
			fn.labels[strings.TrimSuffix(line, ":")] = len(fn.code)
			fn.code = append(fn.code, asmIns{line: i + 1, text: line})
			continue
		}
		if fn == nil {
			return nil, fmt.Errorf("line %d: an instruction outside a function: %s", i+1, line)
		}
		op, rest, _ := strings.Cut(line, " ")
		var args []string
		if rest = strings.TrimSpace(rest); rest != "" {
			for _, a := range strings.Split(rest, ",") {
				args = append(args, strings.TrimSpace(a))
			}
		}
		fn.code = append(fn.code, asmIns{line: i + 1, op: op, args: args, text: line})
	}
	for _, d := range datas {
		b, ok := p.data[d.sym]
		if !ok || d.off+d.size > len(b) {
			return nil, fmt.Errorf("line %d: DATA outside its GLOBL", d.line)
		}
		for k := range d.size {
			b[d.off+k] = byte(d.val >> (8 * k))
			p.known[d.sym][d.off+k] = true
		}
	}
	return p, nil
}

// ---------------------------------------------------------------------------
// Values.

// An aval is the abstract value of a vector register or memory slot: the
// same range in every lane.
type aval struct {
	def    bool   // written
	lo, hi uint64 // range
	mask   bool   // every lane 0 or all ones
	id     int    // identity: values with the same id are equal
	pair   *[2]aval
	masked bool // the value is pair[0] ^ pair[1], or 0 (masked by a mask)
}

const all = math.MaxUint64

func (a aval) eqRange(b aval) bool {
	return a.def == b.def && a.lo == b.lo && a.hi == b.hi && a.mask == b.mask
}

// A gp is a general register: a pointer into region at off (+ k*stride
// for some unknown k >= 0 where stride > 0), or with region "" a number,
// known where stride is 0.
type gp struct {
	def    bool
	region string
	off    int64
	stride int64
}

type slot struct {
	v     aval
	width int
}

type state struct {
	vec [32]aval
	k   [8]aval
	gp  map[string]gp
	mem map[string]map[int64]slot // region -> offset -> value
}

func newState() *state {
	return &state{gp: map[string]gp{}, mem: map[string]map[int64]slot{}}
}

func (s *state) clone() *state {
	c := &state{vec: s.vec, k: s.k, gp: map[string]gp{}, mem: map[string]map[int64]slot{}}
	for r, v := range s.gp {
		c.gp[r] = v
	}
	for r, m := range s.mem {
		c.mem[r] = map[int64]slot{}
		for o, v := range m {
			c.mem[r][o] = v
		}
	}
	return c
}

type interp struct {
	prog      *asmProg
	claims    *Claims
	errs      []error
	reporting bool
	ids       int
	fn        string
	claim     FuncClaim
	written   map[string]map[int64]bool // output limbs written
	reached   map[string]map[int]uint64 // form -> limb -> largest output
	depth     int
}

func (in *interp) fresh() int { in.ids++; return in.ids }

func (in *interp) errorf(ins asmIns, format string, a ...any) {
	if in.reporting {
		in.errs = append(in.errs, fmt.Errorf("%s: line %d (%s): %s", in.fn, ins.line, ins.text, fmt.Sprintf(format, a...)))
	}
}

func (in *interp) rng(lo, hi uint64) aval {
	return aval{def: true, lo: lo, hi: hi, id: in.fresh()}
}

func (in *interp) maskVal() aval {
	v := in.rng(0, all)
	v.mask = true
	return v
}

func (in *interp) join(a, b aval) aval {
	if !a.def || !b.def {
		return aval{}
	}
	if a.id == b.id {
		return a
	}
	v := in.rng(min(a.lo, b.lo), max(a.hi, b.hi))
	v.mask = a.mask && b.mask
	return v
}

// joinGP joins two general registers: undefined (and an error to read)
// where they point to different regions.
func joinGP(a, b gp) gp {
	if !a.def || !b.def || a.region != b.region {
		return gp{}
	}
	s := gcd(gcd(a.stride, b.stride), abs(a.off-b.off))
	off := min(a.off, b.off)
	if s > 0 && a.region == "" {
		off = 0
		s = 1
	}
	return gp{def: true, region: a.region, off: off, stride: s}
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func abs(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

// joinStates returns the join of a and b and whether it equals a.
func (in *interp) joinStates(a, b *state) (*state, bool) {
	j := newState()
	same := true
	for i := range a.vec {
		j.vec[i] = in.join(a.vec[i], b.vec[i])
		same = same && j.vec[i].eqRange(a.vec[i])
	}
	for i := range a.k {
		j.k[i] = in.join(a.k[i], b.k[i])
		same = same && j.k[i].eqRange(a.k[i])
	}
	for r, x := range a.gp {
		y := joinGP(x, b.gp[r])
		j.gp[r] = y
		same = same && y == x
	}
	for r, m := range a.mem {
		j.mem[r] = map[int64]slot{}
		for o, x := range m {
			y, ok := b.mem[r][o]
			if !ok || y.width != x.width {
				same = false
				continue
			}
			v := in.join(x.v, y.v)
			j.mem[r][o] = slot{v, x.width}
			same = same && v.eqRange(x.v)
		}
	}
	return j, same
}

// ---------------------------------------------------------------------------
// Operands.

var (
	vregRe = regexp.MustCompile(`^([XYZ])(\d+)$`)
	kregRe = regexp.MustCompile(`^K(\d)$`)
	memRe  = regexp.MustCompile(`^(-?\d*)\((\w+)\)(?:\((\w+)\*(\d)\))?$`)
	symRe  = regexp.MustCompile(`^([\w<>]+?)(?:\+(\d+))?\(SB\)$`)
	fpRe   = regexp.MustCompile(`^(\w+)\+(\d+)\(FP\)$`)
)

func vreg(a string) (n, width int, ok bool) {
	m := vregRe.FindStringSubmatch(a)
	if m == nil {
		return 0, 0, false
	}
	n, _ = strconv.Atoi(m[2])
	return n, map[string]int{"X": 16, "Y": 32, "Z": 64}[m[1]], true
}

func isMem(a string) bool { return strings.HasSuffix(a, ")") }

// addr returns the address of a memory operand.
func (in *interp) addr(s *state, ins asmIns, a string) (gp, bool) {
	if m := symRe.FindStringSubmatch(a); m != nil {
		off, _ := strconv.ParseInt(m[2], 10, 64)
		if _, ok := in.prog.data[m[1]]; !ok {
			in.errorf(ins, "unknown symbol %s", m[1])
			return gp{}, false
		}
		return gp{def: true, region: m[1], off: off}, true
	}
	m := memRe.FindStringSubmatch(a)
	if m == nil {
		in.errorf(ins, "operand %s not understood", a)
		return gp{}, false
	}
	off, _ := strconv.ParseInt(m[1], 10, 64)
	base := s.gp[m[2]]
	if !base.def || base.region == "" {
		in.errorf(ins, "%s is not a pointer", m[2])
		return gp{}, false
	}
	base.off += off
	if m[3] != "" {
		idx := s.gp[m[3]]
		scale, _ := strconv.ParseInt(m[4], 10, 64)
		if !idx.def || idx.region != "" {
			in.errorf(ins, "%s is not a number", m[3])
			return gp{}, false
		}
		base.off += scale * idx.off
		base.stride = gcd(base.stride, scale*idx.stride)
	}
	return base, true
}

// load reads width bytes at the memory operand a.
func (in *interp) load(s *state, ins asmIns, a string, width int) aval {
	p, ok := in.addr(s, ins, a)
	if !ok {
		return in.rng(0, all)
	}
	return in.loadAt(s, ins, p, width)
}

// loadAt reads width bytes (qwords) at p.
func (in *interp) loadAt(s *state, ins asmIns, p gp, width int) aval {
	if b, ok := in.prog.data[p.region]; ok {
		lo, hi := uint64(all), uint64(0)
		offs := []int64{p.off}
		if p.stride > 0 {
			offs = nil
			for o := p.off % p.stride; o < int64(len(b)); o += p.stride {
				offs = append(offs, o)
			}
		}
		for _, o := range offs {
			if o < 0 || o+int64(width) > int64(len(b)) {
				in.errorf(ins, "read outside %s", p.region)
				return in.rng(0, all)
			}
			for k := o; k < o+int64(width); k += 8 {
				var v uint64
				for i := int64(7); i >= 0; i-- {
					v = v<<8 | uint64(b[k+i])
				}
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		return in.rng(lo, hi)
	}
	if sl, ok := s.mem[p.region][p.off]; ok && p.stride == 0 {
		if sl.width < width {
			in.errorf(ins, "a read of %d bytes of a %d-byte store", width, sl.width)
		}
		return sl.v
	}
	form, ok := in.claim.In[p.region]
	if !ok {
		in.errorf(ins, "a read of %s+%d that nothing wrote", p.region, p.off)
		return in.rng(0, all)
	}
	f := in.claims.Forms[form]
	st := int64(in.stride(p.region))
	var limbs []int
	switch {
	case p.stride == 0:
		if p.off%st+int64(width) > st || p.off < 0 {
			in.errorf(ins, "a read across limbs of %s", p.region)
		}
		limbs = []int{int(p.off/st) % len(f)}
	case p.stride%(st*int64(len(f))) == 0 && p.off%st+int64(width) <= st:
		limbs = []int{int(p.off/st) % len(f)}
	default:
		for i := range f {
			limbs = append(limbs, i)
		}
	}
	var v aval
	for i, l := range limbs {
		b := f[l]
		var x aval
		if b.Mask {
			x = in.maskVal()
		} else {
			x = in.rng(0, b.Max)
		}
		if i == 0 {
			v = x
		} else {
			v = in.join(v, x)
		}
	}
	return v
}

// stride returns the bytes between the limbs of the argument arg.
func (in *interp) stride(arg string) int {
	if st, ok := in.claim.Stride[arg]; ok {
		return st
	}
	return in.claims.Stride
}

func (in *interp) store(s *state, ins asmIns, a string, v aval, width int) {
	p, ok := in.addr(s, ins, a)
	if !ok {
		return
	}
	if _, ok := in.prog.data[p.region]; ok {
		in.errorf(ins, "a store to read-only data")
		return
	}
	if p.stride != 0 {
		in.errorf(ins, "a store to an unknown offset of %s", p.region)
		return
	}
	if !v.def {
		in.errorf(ins, "a store of an undefined register")
	}
	if form, ok := in.claim.Out[p.region]; ok {
		f := in.claims.Forms[form]
		st := int64(in.stride(p.region))
		l := int(p.off/st) % len(f)
		if p.off%st+int64(width) > st {
			in.errorf(ins, "a store across limbs of %s", p.region)
		}
		if b := f[l]; (b.Mask && !v.mask) || (!b.Mask && v.hi > b.Max) {
			in.errorf(ins, "output %s limb %d may be %#x, above its form %s's %#x", p.region, l, v.hi, form, b.Max)
		}
		if in.reporting {
			if in.reached[form] == nil {
				in.reached[form] = map[int]uint64{}
			}
			in.reached[form][l] = max(in.reached[form][l], v.hi)
		}
		if in.written[p.region] == nil {
			in.written[p.region] = map[int64]bool{}
		}
		in.written[p.region][p.off/st] = true
	} else if _, ok := in.claim.In[p.region]; ok {
		in.errorf(ins, "a store to the input %s", p.region)
	}
	if s.mem[p.region] == nil {
		s.mem[p.region] = map[int64]slot{}
	}
	for o, sl := range s.mem[p.region] { // a store over part of an older one
		if o != p.off && o < p.off+int64(width) && p.off < o+int64(sl.width) {
			delete(s.mem[p.region], o)
		}
	}
	s.mem[p.region][p.off] = slot{v, width}
}

// src reads a vector source operand: a register or memory.
func (in *interp) src(s *state, ins asmIns, a string, width int) aval {
	if n, _, ok := vreg(a); ok {
		v := s.vec[n]
		if !v.def {
			in.errorf(ins, "a read of %s, which nothing wrote", a)
			return in.rng(0, all)
		}
		return v
	}
	if isMem(a) {
		return in.load(s, ins, a, width)
	}
	in.errorf(ins, "operand %s not understood", a)
	return in.rng(0, all)
}

func bitsMax(x uint64) uint64 {
	if x == 0 {
		return 0
	}
	return all >> bits.LeadingZeros64(x)
}

// ---------------------------------------------------------------------------
// Interpretation.

func (in *interp) checkFunc(name string, fc FuncClaim) {
	in.fn, in.claim = name, fc
	in.written = map[string]map[int64]bool{}
	in.reporting = true
	for arg, form := range fc.In {
		if _, ok := fc.Out[arg]; ok {
			in.errs = append(in.errs, fmt.Errorf("%s: %s is claimed as input and output (%s)", name, arg, form))
		}
	}
	s := newState()
	end, ended := in.run(in.prog.funcs[name], 0, len(in.prog.funcs[name].code), s)
	if !ended {
		in.errs = append(in.errs, fmt.Errorf("%s: the code ends without RET", name))
	}
	for i, v := range end.vec {
		if v.def && v.hi != 0 {
			in.errs = append(in.errs, fmt.Errorf("%s: vector register %d may hold a value at RET", name, i))
		}
	}
	for i, v := range end.k {
		if v.def && v.hi != 0 {
			in.errs = append(in.errs, fmt.Errorf("%s: mask register K%d may hold a value at RET", name, i))
		}
	}
	for arg, form := range fc.Out {
		for j := range len(in.claims.Forms[form]) {
			if !in.written[arg][int64(j)] {
				in.errs = append(in.errs, fmt.Errorf("%s: limb %d of the output %s (%s) is never written", name, j, arg, form))
				break
			}
		}
	}
}

// run interprets fn's code from index from to index to in s; it returns
// at a RET (true) or at to (false).
func (in *interp) run(fn *asmFunc, from, to int, s *state) (*state, bool) {
	for i := from; i < to; i++ {
		ins := fn.code[i]
		if ins.op == "" {
			if j := backJump(fn, i); j > i {
				s = in.loop(fn, i, j, s)
				i = j
			}
			continue
		}
		switch ins.op {
		case "RET":
			return s, true
		case "CALL":
			m := symRe.FindStringSubmatch(ins.args[0])
			var callee *asmFunc
			if m != nil && strings.HasSuffix(m[1], "<>") {
				callee = in.prog.funcs[m[1]]
			}
			if callee == nil {
				in.errorf(ins, "CALL of something other than a static function of the file")
				continue
			}
			if in.depth > 8 {
				in.errorf(ins, "calls nested too deep")
				continue
			}
			in.depth++
			var ret bool
			s, ret = in.run(callee, 0, len(callee.code), s)
			in.depth--
			if !ret {
				in.errorf(ins, "%s ends without RET", m[1])
			}
		case "JNZ", "JNE", "JGE", "JMP", "JZ", "JEQ", "JL", "JLT":
			if j, ok := fn.labels[ins.args[0]]; !ok || j > i || ins.op == "JMP" {
				in.errorf(ins, "a jump that is not a loop's conditional jump back")
			}
		default:
			in.step(s, ins)
		}
	}
	return s, false
}

// backJump returns the index of the last jump back to the label at i, or
// -1.
func backJump(fn *asmFunc, i int) int {
	j := -1
	for k := i + 1; k < len(fn.code); k++ {
		c := fn.code[k]
		if strings.HasPrefix(c.op, "J") && len(c.args) == 1 {
			if l, ok := fn.labels[c.args[0]]; ok && l == i {
				j = k
			}
		}
	}
	return j
}

// loop runs the loop from the label at i to the jump at j to a fixed
// point and returns the state after it.
func (in *interp) loop(fn *asmFunc, i, j int, s *state) *state {
	outer := in.reporting
	in.reporting = false
	head := s
	for iter := 0; ; iter++ {
		body, ret := in.run(fn, i+1, j, head.clone())
		if ret {
			in.reporting = outer
			in.errorf(fn.code[i], "a RET inside a loop")
			return body
		}
		joined, same := in.joinStates(head, body)
		if same {
			break
		}
		head = joined
		if iter == 30 {
			in.reporting = outer
			in.errorf(fn.code[i], "the bounds grow with every iteration of this loop (no fixed point in 30)")
			return body
		}
	}
	in.reporting = outer
	out, _ := in.run(fn, i+1, j, head.clone())
	return out
}

var gpNames = map[string]bool{"AX": true, "BX": true, "CX": true, "DX": true, "SI": true, "DI": true,
	"R8": true, "R9": true, "R10": true, "R11": true, "R12": true, "R13": true, "R14": true, "R15": true}

func (in *interp) gpSrc(s *state, ins asmIns, a string) gp {
	if strings.HasPrefix(a, "$") {
		v, err := strconv.ParseInt(a[1:], 0, 64)
		if err != nil {
			in.errorf(ins, "immediate %s not understood", a)
		}
		return gp{def: true, off: v}
	}
	if m := fpRe.FindStringSubmatch(a); m != nil {
		return gp{def: true, region: m[1]}
	}
	if !gpNames[a] {
		in.errorf(ins, "operand %s not understood", a)
		return gp{def: true, stride: 1}
	}
	v := s.gp[a]
	if !v.def {
		in.errorf(ins, "a read of %s, which nothing wrote", a)
		return gp{def: true, stride: 1}
	}
	return v
}

func (in *interp) step(s *state, ins asmIns) {
	a := ins.args
	need := func(n int) bool {
		if len(a) != n {
			in.errorf(ins, "%d operands, want %d", len(a), n)
			return false
		}
		return true
	}
	switch ins.op {
	case "MOVQ":
		if !need(2) {
			return
		}
		if n, _, ok := vreg(a[1]); ok { // a shift count
			in.gpSrc(s, ins, a[0])
			s.vec[n] = in.rng(0, all)
			return
		}
		s.gp[a[1]] = in.gpSrc(s, ins, a[0])
	case "LEAQ":
		if !need(2) {
			return
		}
		if p, ok := in.addr(s, ins, a[0]); ok {
			s.gp[a[1]] = p
		}
	case "ADDQ", "SUBQ":
		if !need(2) {
			return
		}
		x, d := in.gpSrc(s, ins, a[0]), in.gpSrc(s, ins, a[1])
		if x.region != "" {
			in.errorf(ins, "pointer arithmetic with a pointer operand")
			return
		}
		if ins.op == "SUBQ" {
			x.off = -x.off
		}
		d.off += x.off
		d.stride = gcd(d.stride, x.stride)
		if d.region == "" && d.stride > 0 {
			d.off = 0
		}
		s.gp[a[1]] = d
	case "ANDQ":
		if !need(2) {
			return
		}
		x, d := in.gpSrc(s, ins, a[0]), in.gpSrc(s, ins, a[1])
		switch {
		case x.region != "" || x.stride != 0:
			in.errorf(ins, "ANDQ with an unknown operand")
		case d.region != "":
			// Aligning a pointer: ADDQ $a-1 then ANDQ $-a starts the region
			// at the aligned address.
			if x.off >= 0 || d.off < 0 || d.off >= -x.off || d.stride != 0 {
				in.errorf(ins, "ANDQ on a pointer other than an alignment")
			}
			d.off = 0
			s.gp[a[1]] = d
		case d.stride == 0:
			s.gp[a[1]] = gp{def: true, off: d.off & x.off}
		default:
			s.gp[a[1]] = gp{def: true, stride: 1}
		}
	case "SHRQ", "SHLQ":
		if !need(2) {
			return
		}
		x, d := in.gpSrc(s, ins, a[0]), in.gpSrc(s, ins, a[1])
		switch {
		case x.region != "" || x.stride != 0 || d.region != "":
			in.errorf(ins, "a shift of a pointer or by an unknown count")
		case d.stride == 0 && ins.op == "SHRQ":
			s.gp[a[1]] = gp{def: true, off: int64(uint64(d.off) >> x.off)}
		case ins.op == "SHLQ":
			s.gp[a[1]] = gp{def: true, off: d.off << x.off, stride: d.stride << x.off}
		default:
			s.gp[a[1]] = gp{def: true, stride: 1}
		}
	case "DECQ":
		if !need(1) {
			return
		}
		d := in.gpSrc(s, ins, a[0])
		if d.region != "" {
			in.errorf(ins, "DECQ of a pointer")
		}
		d.off--
		if d.stride > 0 {
			d.off = 0
		}
		s.gp[a[0]] = d
	case "VZEROALL", "VZEROUPPER":
		for i := range 16 {
			v := in.rng(0, 0)
			if ins.op == "VZEROUPPER" {
				v = s.vec[i] // the low 128 bits remain: not a zero
			}
			s.vec[i] = v
		}
	case "KXORW", "KXORQ":
		if need(3) && a[0] == a[1] {
			n, _ := strconv.Atoi(strings.TrimPrefix(a[2], "K"))
			s.k[n] = in.rng(0, 0)
		} else {
			in.errorf(ins, "only K ^ K = 0 is understood")
		}
	case "VMOVDQU", "VMOVDQU64", "VMOVDQA", "VMOVDQA64":
		if !need(2) {
			return
		}
		dn, dw, dreg := vreg(a[1])
		if dreg {
			s.vec[dn] = in.src(s, ins, a[0], dw)
			return
		}
		_, w, ok := vreg(a[0])
		if !ok || !isMem(a[1]) {
			in.errorf(ins, "operands not understood")
			return
		}
		in.store(s, ins, a[1], in.src(s, ins, a[0], w), w)
	case "VPBROADCASTQ":
		if len(a) == 3 { // merge-masked: mem, K, dst
			n, _, ok := vreg(a[2])
			if !ok || !kregRe.MatchString(a[1]) || !isMem(a[0]) {
				in.errorf(ins, "operands not understood")
				return
			}
			p, okp := in.addr(s, ins, a[0])
			if !okp {
				return
			}
			v := in.loadAt(s, ins, p, 8)
			old := s.vec[n]
			if !old.def {
				in.errorf(ins, "a merge into %s, which nothing wrote", a[2])
				old = in.rng(0, all)
			}
			s.vec[n] = in.join(old, v)
			return
		}
		if !need(2) {
			return
		}
		n, _, ok := vreg(a[1])
		if !ok || !isMem(a[0]) {
			in.errorf(ins, "operands not understood")
			return
		}
		p, okp := in.addr(s, ins, a[0])
		if !okp {
			return
		}
		s.vec[n] = in.loadAt(s, ins, p, 8)
	case "VPCMPEQQ":
		if !need(3) {
			return
		}
		_, w, _ := vreg(a[1])
		in.src(s, ins, a[0], w)
		in.src(s, ins, a[1], w)
		if m := kregRe.FindStringSubmatch(a[2]); m != nil {
			k, _ := strconv.Atoi(m[1])
			s.k[k] = in.maskVal()
			return
		}
		if n, _, ok := vreg(a[2]); ok {
			s.vec[n] = in.maskVal()
			return
		}
		in.errorf(ins, "operands not understood")
	case "VPADDQ", "VPSUBQ", "VPMULUDQ", "VPAND", "VPANDQ", "VPOR", "VPORQ", "VPXOR", "VPXORQ", "VPSRLQ", "VPSLLQ":
		if !need(3) {
			return
		}
		dn, w, ok := vreg(a[2])
		if !ok {
			in.errorf(ins, "destination %s not understood", a[2])
			return
		}
		if (ins.op == "VPXOR" || ins.op == "VPXORQ") && a[0] == a[1] {
			if _, _, ok := vreg(a[0]); ok {
				s.vec[dn] = in.rng(0, 0)
				return
			}
		}
		y := in.src(s, ins, a[1], w)
		if ins.op == "VPSRLQ" || ins.op == "VPSLLQ" {
			s.vec[dn] = in.shift(s, ins, a[0], y)
			return
		}
		x := in.src(s, ins, a[0], w)
		s.vec[dn] = in.arith(ins, x, y)
	default:
		in.errorf(ins, "instruction not understood")
	}
}

func (in *interp) shift(s *state, ins asmIns, count string, y aval) aval {
	if !strings.HasPrefix(count, "$") {
		if _, w, ok := vreg(count); !ok || w != 16 || ins.op != "VPSRLQ" {
			in.errorf(ins, "shift count %s not understood", count)
		}
		return in.rng(0, y.hi) // a right shift by any count
	}
	n, err := strconv.ParseUint(count[1:], 0, 6)
	if err != nil {
		in.errorf(ins, "shift count %s not understood", count)
		return in.rng(0, all)
	}
	if ins.op == "VPSRLQ" {
		return in.rng(y.lo>>n, y.hi>>n)
	}
	if y.hi > all>>n {
		in.errorf(ins, "the left shift may lose bits: %#x << %d", y.hi, n)
		return in.rng(0, all)
	}
	return in.rng(y.lo<<n, y.hi<<n)
}

// arith computes op(x, y) for the Go operand order: op x, y, dst is
// dst = y op x.
func (in *interp) arith(ins asmIns, x, y aval) aval {
	switch ins.op {
	case "VPADDQ":
		hi, c := bits.Add64(x.hi, y.hi, 0)
		if c != 0 {
			in.errorf(ins, "the addition may wrap: %#x + %#x", x.hi, y.hi)
			return in.rng(0, all)
		}
		return in.rng(x.lo+y.lo, hi)
	case "VPSUBQ":
		if y.lo == 0 && y.hi == 0 && x.hi <= 1 {
			return in.maskVal() // 0 - b for a bit b: a mask
		}
		if y.lo < x.hi {
			in.errorf(ins, "the subtraction may go below 0: %#x - %#x", y.lo, x.hi)
			return in.rng(0, all)
		}
		return in.rng(y.lo-x.hi, y.hi-x.lo)
	case "VPMULUDQ":
		if x.hi > 1<<32-1 || y.hi > 1<<32-1 {
			in.errorf(ins, "a VPMULUDQ input may reach 2^32: %#x * %#x", y.hi, x.hi)
			return in.rng(0, all)
		}
		return in.rng(x.lo*y.lo, x.hi*y.hi)
	case "VPAND", "VPANDQ":
		if x.mask && !y.mask {
			x, y = y, x
		}
		if y.mask { // x or 0
			v := in.rng(0, x.hi)
			if x.pair != nil && !x.masked {
				v.pair, v.masked = x.pair, true
			}
			return v
		}
		return in.rng(0, min(x.hi, y.hi))
	case "VPOR", "VPORQ":
		if x.hi == 0 {
			return y
		}
		if y.hi == 0 {
			return x
		}
		return in.rng(max(x.lo, y.lo), bitsMax(max(x.hi, y.hi)))
	default: // VPXOR, VPXORQ
		for _, c := range [][2]aval{{x, y}, {y, x}} {
			t, o := c[0], c[1]
			if t.pair == nil {
				continue
			}
			for k, p := range t.pair {
				if p.id != o.id {
					continue
				}
				if !t.masked {
					return t.pair[1-k] // (a ^ b) ^ a = b
				}
				return in.join(t.pair[0], t.pair[1]) // a or b
			}
		}
		v := in.rng(0, bitsMax(max(x.hi, y.hi)))
		v.pair = &[2]aval{x, y}
		return v
	}
}
