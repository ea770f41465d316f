package sim

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"

	"github.com/fanseal/fanseal/ledger"
)

// The ledger file is a sequence of frames:
//
//	frame     = length (4, big-endian: the bytes after it) || kind (1) ||
//	            seqno (8) || view (4) || body
//	tx body   = public length (4) || public write set || private entry
//	sig body  = root (32) || commit evidence (32) || Ed25519 signature (64)
//
// A private entry is ledger.Encryptor's tag || IV || ciphertext, sealed
// with the public write set as additional data. A write set is a list of
// key length (2) || key || value length (4) || value. A signature's root
// is SHA-256(previous signature's root || SHA-256(every frame since the
// previous signature)), so a damaged frame fails only its own interval's
// signature; the node signs "fanseal sim ledger signature" || seqno ||
// view || root || commit evidence.
const (
	kindTx          = 1
	kindSignature   = 2
	frameHeaderSize = 4 + 1 + 8 + 4
	signatureBody   = 32 + 32 + ed25519.SignatureSize
	maxFrame        = 1 << 26
)

func appendFrameHeader(b []byte, kind byte, txid ledger.TxID) []byte {
	b = append(b, 0, 0, 0, 0, kind)
	b = binary.BigEndian.AppendUint64(b, txid.Seqno)
	return binary.BigEndian.AppendUint32(b, uint32(txid.View))
}

// putFrameLen fills in the length of a complete frame.
func putFrameLen(frame []byte) {
	binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))
}

func parseFrameHeader(frame []byte) (kind byte, txid ledger.TxID, body []byte) {
	return frame[4], ledger.TxID{Seqno: binary.BigEndian.Uint64(frame[5:]), View: uint64(binary.BigEndian.Uint32(frame[13:]))}, frame[frameHeaderSize:]
}

// splitTx splits a transaction body into its public write set and
// private entry.
func splitTx(body []byte) (public, entry []byte, ok bool) {
	if len(body) < 4 {
		return nil, nil, false
	}
	n := binary.BigEndian.Uint32(body)
	if uint64(n) > uint64(len(body)-4) {
		return nil, nil, false
	}
	return body[4 : 4+n], body[4+n:], true
}

// countEntries returns the number of entries of a write set, or -1 if it
// is malformed.
func countEntries(ws []byte) int {
	n := 0
	for len(ws) > 0 {
		if len(ws) < 2 {
			return -1
		}
		k := int(binary.BigEndian.Uint16(ws))
		if len(ws) < 2+k+4 {
			return -1
		}
		v := binary.BigEndian.Uint32(ws[2+k:])
		if uint64(v) > uint64(len(ws)-2-k-4) {
			return -1
		}
		ws = ws[2+k+4+int(v):]
		n++
	}
	return n
}

// chainRoot returns SHA-256(prev || SHA-256(interval)).
func chainRoot(prev [32]byte, interval hash.Hash) [32]byte {
	h := sha256.New()
	h.Write(prev[:])
	h.Write(interval.Sum(nil))
	return [32]byte(h.Sum(nil))
}

func signedBytes(txid ledger.TxID, root, evidence [32]byte) []byte {
	b := []byte("fanseal sim ledger signature")
	b = binary.BigEndian.AppendUint64(b, txid.Seqno)
	b = binary.BigEndian.AppendUint32(b, uint32(txid.View))
	b = append(b, root[:]...)
	return append(b, evidence[:]...)
}

// auditResult is what the auditor found.
type auditResult struct {
	accepted     int    // transactions in intervals whose signature and entries all check
	lastAccepted uint64 // the last accepted signature's seqno
	authFailures int    // entries that fail authentication
	wrongEntry   int    // entries of another transaction
	badIntervals int    // signatures that do not check, or cover a bad entry
	uncommitted  int    // transactions after the last signature
	torn         int    // a frame cut short at the end
	malformed    int    // frames or write sets that do not parse
}

func (a auditResult) problems() int {
	return a.authFailures + a.wrongEntry + a.badIntervals + a.uncommitted + a.torn + a.malformed
}

// audit reads the ledger file at path from the start with only the ledger
// secrets and the node's public key: it decrypts every private entry under
// the secret in force at its seqno, as the write set of the transaction its
// frame names (another transaction's entry is refused), checks that
// both write sets parse, and checks every signature, its chained root and
// its commit evidence. It accepts the transactions of the intervals that
// check; nothing after the last signature.
func audit(path string, secrets []ledger.Secret, node ed25519.PublicKey) (auditResult, error) {
	var a auditResult
	ss, err := ledger.NewSecrets(secrets[0].From, secrets[0].Key)
	if err != nil {
		return a, err
	}
	for _, s := range secrets[1:] {
		if err := ss.Rekey(s.From, s.Key); err != nil {
			return a, err
		}
	}
	enc := ledger.NewEncryptor(ss)
	f, err := os.Open(path)
	if err != nil {
		return a, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 256<<10)
	interval := sha256.New()
	var prevRoot [32]byte
	txs, bad := 0, false
	var frame, plain []byte
	for {
		var length [4]byte
		if _, err := io.ReadFull(r, length[:]); err == io.EOF {
			break
		} else if err != nil {
			a.torn++
			break
		}
		size := binary.BigEndian.Uint32(length[:])
		if size < frameHeaderSize-4 || size > maxFrame {
			a.malformed++
			break
		}
		frame = append(append(frame[:0], length[:]...), make([]byte, size)...)
		if _, err := io.ReadFull(r, frame[4:]); err != nil {
			a.torn++
			break
		}
		kind, txid, body := parseFrameHeader(frame)
		switch kind {
		case kindTx:
			interval.Write(frame)
			txs++
			public, entry, ok := splitTx(body)
			if !ok || countEntries(public) < 0 {
				a.malformed++
				bad = true
				continue
			}
			plain, err = enc.Decrypt(plain[:0], entry, public, txid, ledger.WriteSet)
			switch {
			case errors.Is(err, ledger.ErrAuthentication):
				a.authFailures++
				bad = true
			case errors.Is(err, ledger.ErrWrongEntry):
				a.wrongEntry++
				bad = true
			case err != nil || countEntries(plain) < 0:
				a.malformed++
				bad = true
			}
		case kindSignature:
			root := chainRoot(prevRoot, interval)
			if len(body) != signatureBody || !bytes.Equal(root[:], body[:32]) ||
				!ed25519.Verify(node, signedBytes(txid, root, [32]byte(body[32:64])), body[64:]) {
				bad = true
			} else if evidence, err := ss.CommitEvidence(txid); err != nil || !bytes.Equal(evidence[:], body[32:64]) {
				bad = true
			}
			if bad {
				a.badIntervals++
			} else {
				a.accepted += txs
				a.lastAccepted = txid.Seqno
			}
			if len(body) >= 32 {
				prevRoot = [32]byte(body[:32])
			}
			interval.Reset()
			txs, bad = 0, false
		default:
			a.malformed++
		}
	}
	a.uncommitted = txs
	return a, nil
}

// faultsInjected is what injectFaults did, and what the auditor must
// therefore find.
type faultsInjected struct {
	flipped, moved, stale, torn int
	badIntervals, lostTxs       int
}

// injectFaults damages the rolled-back ledger file as whoever controls
// storage could: it flips a ciphertext bit of the first transaction of the
// first interval, moves the private entry of the second interval's first
// transaction into the first transaction of the last interval (given three
// committed intervals), and appends a stale node's
// entries (valid, but after the rollback point, so never signed) and a
// torn frame.
func (w *ledgerWorld) injectFaults() (faultsInjected, error) {
	var in faultsInjected
	var refs []frameRef
	for _, r := range w.firstOfInt {
		if r.seqno < w.lastSig.seqno {
			refs = append(refs, r)
		}
	}
	if len(refs) >= 3 {
		first, last := refs[0], refs[len(refs)-1]
		// A flipped bit in the last byte (ciphertext) of the first frame.
		b := make([]byte, 1)
		at := first.offset + int64(first.size) - 1
		if _, err := w.file.ReadAt(b, at); err != nil {
			return in, err
		}
		b[0] ^= 0x01
		if _, err := w.file.WriteAt(b, at); err != nil {
			return in, err
		}
		// The last interval's first frame gets the private entry of the
		// second interval's; the file after it moves.
		source := refs[1]
		src := make([]byte, source.size)
		if _, err := w.file.ReadAt(src, source.offset); err != nil {
			return in, err
		}
		tail := make([]byte, w.lastSig.offset-last.offset)
		if _, err := w.file.ReadAt(tail, last.offset); err != nil {
			return in, err
		}
		target, rest := tail[:last.size], tail[last.size:]
		_, _, tbody := parseFrameHeader(target)
		_, _, sbody := parseFrameHeader(src)
		tpub, _, _ := splitTx(tbody)
		_, sentry, _ := splitTx(sbody)
		moved := append(bytes.Clone(target[:frameHeaderSize+4+len(tpub)]), sentry...)
		putFrameLen(moved)
		if _, err := w.file.WriteAt(append(moved, rest...), last.offset); err != nil {
			return in, err
		}
		if err := w.file.Truncate(last.offset + int64(len(moved)+len(rest))); err != nil {
			return in, err
		}
		in.flipped, in.moved, in.badIntervals = 1, 1, 2
		in.lostTxs = 2 * w.o.SignatureInterval
	}
	// A stale node's transactions after the rollback point, then a frame
	// cut short.
	end, err := w.file.Seek(0, io.SeekEnd)
	if err != nil {
		return in, err
	}
	var stale []byte
	for i := range 3 {
		txid := ledger.TxID{View: ledgerView, Seqno: w.lastSig.seqno + 1 + uint64(i)}
		frame := appendFrameHeader(nil, kindTx, txid)
		public := []byte("\x00\x05stale\x00\x00\x00\x00")
		frame = binary.BigEndian.AppendUint32(frame, uint32(len(public)))
		frame = append(frame, public...)
		if frame, err = w.enc.Encrypt(frame, public, public, txid, ledger.WriteSet); err != nil {
			return in, err
		}
		putFrameLen(frame)
		stale = append(stale, frame...)
		in.stale++
		if i == 2 {
			stale = append(stale, frame[:len(frame)/2]...)
			in.torn++
		}
	}
	if _, err := w.file.WriteAt(stale, end); err != nil {
		return in, fmt.Errorf("appending stale entries: %w", err)
	}
	return in, w.file.Sync()
}
