package server

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/zlite/zlite/internal/serverapi"
	"github.com/zlite/zlite/zset"
)

// Limits of the request parser, Redis's (server.h).
const (
	// inlineMax is PROTO_INLINE_MAX_SIZE: the longest inline command, and the
	// longest "*<count>" or "$<len>" line.
	inlineMax = 64 * 1024
	// unauthMaxArgs and unauthMaxBulk bound the requests of a connection that has
	// not authenticated yet, when a password is set.
	unauthMaxArgs = 10
	unauthMaxBulk = 16384
	// queryMax is client-query-buffer-limit: a command whose arguments add up to
	// more is dropped with the connection, without a reply, as Redis does.
	queryMax = 1 << 30
	// arenaMax: a command whose arguments add up to at most this many bytes gets
	// one string for all of them (one allocation); a key kept by the keyspace then
	// keeps at most this much alive.
	arenaMax = 128
)

// ProtocolError is a malformed request. Its Error() is Redis's reply text without
// the "ERR " prefix; the connection is closed after the reply, as in Redis.
type ProtocolError struct{ msg string }

func (e *ProtocolError) Error() string { return "Protocol error: " + e.msg }

var (
	errMultibulkLen    = &ProtocolError{"invalid multibulk length"}
	errBulkLen         = &ProtocolError{"invalid bulk length"}
	errBigMultibulk    = &ProtocolError{"too big mbulk count string"}
	errBigBulkCount    = &ProtocolError{"too big bulk count string"}
	errBigInline       = &ProtocolError{"too big inline request"}
	errUnbalanced      = &ProtocolError{"unbalanced quotes in request"}
	errUnauthMultibulk = &ProtocolError{"unauthenticated multibulk length"}
	errUnauthBulk      = &ProtocolError{"unauthenticated bulk length"}
	// errQueryLimit drops a client whose one command exceeds queryMax.
	errQueryLimit = errors.New("server: client reached the query buffer limit")
)

// reader parses requests (RESP multibulk or inline commands) from a buffered
// connection with Redis's checks and limits. Memory grows with the bytes received,
// never with a length the client announces.
type reader struct {
	br      *bufio.Reader
	line    []byte // a line longer than br's buffer, being assembled
	scratch []byte // the current command's argument bytes
	ends    []int  // the end offset of each argument in scratch
	// args backs the argument slices of the commands buffered has parsed since
	// the last release, so that a pipeline's commands share one growing slice.
	args []string
}

// buffered parses the next command without reading from the connection, when it
// is a multibulk request that lies whole in the read buffer and that next would
// accept; it reports false, consuming nothing, for anything else (an incomplete or
// inline command, a length next refuses), which next then reads and judges. The
// arguments are one string (one allocation) when they and their length lines add
// up to at most arenaMax bytes; the slice is r's, valid until [reader.release].
// The complexity is O(length of the command).
func (r *reader) buffered(maxBulk int64, unauth bool) ([]string, bool) {
	b, _ := r.br.Peek(r.br.Buffered())
	if len(b) == 0 || b[0] != '*' {
		return nil, false
	}
	n, i, ok := lenLine(b, 1)
	if !ok || n == 0 || (unauth && n > unauthMaxArgs) {
		return nil, false
	}
	r.ends = r.ends[:0] // start and end of each argument in b
	for range n {
		if i >= len(b) || b[i] != '$' {
			return nil, false
		}
		l, j, ok := lenLine(b, i+1)
		if !ok || l > maxBulk || (unauth && l > unauthMaxBulk) || int64(len(b)-j) < l+2 {
			return nil, false
		}
		r.ends = append(r.ends, j, j+int(l))
		i = j + int(l) + 2
	}
	at := len(r.args)
	r.args = slices.Grow(r.args, int(n))[:at+int(n)]
	args := r.args[at:len(r.args):len(r.args)]
	if from, to := r.ends[0], r.ends[len(r.ends)-1]; to-from <= arenaMax {
		s := string(b[from:to])
		for k := range args {
			args[k] = s[r.ends[2*k]-from : r.ends[2*k+1]-from]
		}
	} else {
		for k := range args {
			args[k] = string(b[r.ends[2*k]:r.ends[2*k+1]])
		}
	}
	_, _ = r.br.Discard(i)
	return args, true
}

// release drops the argument slices buffered returned, for reuse.
func (r *reader) release() {
	clear(r.args)
	r.args = r.args[:0]
}

// lenLine parses the length line of a request at b[from:]: a decimal number of at
// most 18 digits without a sign or a leading zero, then CR LF. It returns the
// number and the index after the LF, or false for anything else, incomplete
// included.
func lenLine(b []byte, from int) (n int64, next int, ok bool) {
	i := from
	for ; i < len(b) && i-from < 19 && '0' <= b[i] && b[i] <= '9'; i++ {
		n = n*10 + int64(b[i]-'0')
	}
	digits := i - from
	if digits == 0 || digits > 18 || (digits > 1 && b[from] == '0') ||
		i+1 >= len(b) || b[i] != '\r' || b[i+1] != '\n' {
		return 0, 0, false
	}
	return n, i + 2, true
}

// next reads the next command. It skips empty commands ("*0", blank lines), as
// Redis does. maxBulk is proto-max-bulk-len; unauth applies the limits of a client
// that has not authenticated.
func (r *reader) next(maxBulk int64, unauth bool) ([]string, error) {
	for {
		c, err := r.br.ReadByte()
		if err != nil {
			return nil, err
		}
		if c != '*' {
			_ = r.br.UnreadByte()
			args, err := r.inline()
			if err != nil || len(args) > 0 {
				return args, err
			}
			continue
		}
		line, err := r.readLine(errBigMultibulk)
		if err != nil {
			return nil, err
		}
		n, ok := parseLen(line)
		if !ok || n > math.MaxInt32 {
			return nil, errMultibulkLen
		}
		if unauth && n > unauthMaxArgs {
			return nil, errUnauthMultibulk
		}
		if n <= 0 {
			continue
		}
		return r.multibulk(int(n), maxBulk, unauth)
	}
}

// multibulk reads the n bulk strings of a command.
func (r *reader) multibulk(n int, maxBulk int64, unauth bool) ([]string, error) {
	r.scratch, r.ends = r.scratch[:0], r.ends[:0]
	for range n {
		c, err := r.br.ReadByte()
		if err != nil {
			return nil, err
		}
		if c != '$' {
			return nil, &ProtocolError{"expected '$', got '" + string(rune(c)) + "'"}
		}
		line, err := r.readLine(errBigBulkCount)
		if err != nil {
			return nil, err
		}
		l, ok := parseLen(line)
		if !ok || l < 0 || l > maxBulk {
			return nil, errBulkLen
		}
		if unauth && l > unauthMaxBulk {
			return nil, errUnauthBulk
		}
		if int64(len(r.scratch))+l > queryMax {
			return nil, errQueryLimit
		}
		if err := r.readBulk(int(l)); err != nil {
			return nil, err
		}
		r.ends = append(r.ends, len(r.scratch))
	}
	args := make([]string, n)
	if len(r.scratch) <= arenaMax {
		s, start := string(r.scratch), 0
		for i, end := range r.ends {
			args[i], start = s[start:end], end
		}
	} else {
		start := 0
		for i, end := range r.ends {
			args[i], start = string(r.scratch[start:end]), end
		}
	}
	if cap(r.scratch) > 64*1024 {
		r.scratch = nil // do not keep a huge argument's buffer for the next command
	}
	return args, nil
}

// readBulk appends a bulk string of l bytes to scratch and skips the two bytes that
// follow it (Redis does not check that they are CRLF).
func (r *reader) readBulk(l int) error {
	for l > 0 {
		if len(r.scratch) == cap(r.scratch) {
			// Grow by what has arrived, not by what was announced.
			r.scratch = append(r.scratch, 0)[:len(r.scratch)]
		}
		room := min(cap(r.scratch)-len(r.scratch), l)
		k, err := io.ReadFull(r.br, r.scratch[len(r.scratch):len(r.scratch)+room])
		r.scratch = r.scratch[:len(r.scratch)+k]
		l -= k
		if err != nil {
			return noEOF(err)
		}
	}
	if _, err := r.br.Discard(2); err != nil {
		return noEOF(err)
	}
	return nil
}

// noEOF turns an EOF in the middle of a request into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readLine reads a line ending in LF, of at most inlineMax bytes, and returns it
// without the CR LF (valid until the next read); tooBig is the error past the limit.
func (r *reader) readLine(tooBig error) ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.line = append(r.line[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(r.line) > inlineMax {
				return nil, tooBig
			}
			line, err = r.br.ReadSlice('\n')
			r.line = append(r.line, line...)
		}
		line = r.line
	}
	if err != nil {
		return nil, noEOF(err)
	}
	if len(line) > inlineMax+2 {
		return nil, tooBig
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

// inline reads an inline command: one line split into words as Redis's
// sdssplitargs does (quotes, escapes).
func (r *reader) inline() ([]string, error) {
	line, err := r.readLine(errBigInline)
	if err != nil {
		return nil, err
	}
	return splitArgs(line)
}

// parseLen parses the decimal number of a "*" or "$" line as Redis's string2ll.
func parseLen(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	d := b
	if d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || d[0] < '1' || d[0] > '9' {
		return 0, false
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	return n, err == nil
}

// splitArgs splits an inline command line into words like Redis's sdssplitargs:
// spaces separate words; "double quotes" take \n \r \t \b \a \\ \" and \xHH escapes;
// 'single quotes' take only \'; a closing quote must be followed by a space or the
// end of the line.
func splitArgs(line []byte) ([]string, error) {
	var args []string
	var cur []byte
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i == len(line) {
			return args, nil
		}
		cur = cur[:0]
		inq, insq, done := false, false, false
		for !done {
			switch {
			case inq:
				switch {
				case i == len(line):
					return nil, errUnbalanced
				case line[i] == '\\' && i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					cur = append(cur, unhex(line[i+2])<<4|unhex(line[i+3]))
					i += 3
				case line[i] == '\\' && i+1 < len(line):
					i++
					switch c := line[i]; c {
					case 'n':
						cur = append(cur, '\n')
					case 'r':
						cur = append(cur, '\r')
					case 't':
						cur = append(cur, '\t')
					case 'b':
						cur = append(cur, '\b')
					case 'a':
						cur = append(cur, '\a')
					default:
						cur = append(cur, c)
					}
				case line[i] == '"':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return nil, errUnbalanced
					}
					done = true
				default:
					cur = append(cur, line[i])
				}
			case insq:
				switch {
				case i == len(line):
					return nil, errUnbalanced
				case line[i] == '\\' && i+1 < len(line) && line[i+1] == '\'':
					i++
					cur = append(cur, '\'')
				case line[i] == '\'':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return nil, errUnbalanced
					}
					done = true
				default:
					cur = append(cur, line[i])
				}
			default:
				switch {
				case i == len(line):
					done = true
					continue
				case isSpace(line[i]):
					done = true
				case line[i] == '"':
					inq = true
				case line[i] == '\'':
					insq = true
				default:
					cur = append(cur, line[i])
				}
			}
			if i < len(line) {
				i++
			}
		}
		args = append(args, string(cur))
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// writer encodes replies in RESP2 or RESP3 onto a buffered connection.
type writer struct {
	errs  *errorStats   // counts the error replies (INFO errorstats), if set
	bw    *bufio.Writer // where replies go: the connection's buffer, or sink while muted
	conn  *bufio.Writer // the connection's buffer while muted, else nil
	sink  *bufio.Writer // a small buffer onto io.Discard, made by the first mute
	resp3 bool
	num   [32]byte
}

// mute discards the replies written from now on (on), or sends them to the
// connection again (off): CLIENT REPLY OFF and SKIP. Replies written before it
// stay in the connection's buffer, for [writer.flush]. The complexity is O(1).
func (w *writer) mute(on bool) {
	switch {
	case on && w.conn == nil:
		if w.sink == nil {
			w.sink = bufio.NewWriterSize(io.Discard, 64)
		}
		w.conn, w.bw = w.bw, w.sink
	case !on && w.conn != nil:
		w.bw, w.conn = w.conn, nil
	}
}

// flush writes the replies the connection's buffer holds, muted or not.
func (w *writer) flush() error {
	if w.conn != nil {
		return w.conn.Flush()
	}
	return w.bw.Flush()
}

// prefixLen bounds the length of a type byte, a decimal int64 and CR LF.
const prefixLen = 1 + 20 + 2

func (w *writer) prefixed(p byte, n int64) {
	b := w.num[:0]
	if w.bw.Available() >= prefixLen {
		b = w.bw.AvailableBuffer() // encoded in place: Write copies nothing
	}
	b = append(b, p)
	b = strconv.AppendInt(b, n, 10)
	b = append(b, '\r', '\n')
	_, _ = w.bw.Write(b)
}

func (w *writer) crlf() { _, _ = w.bw.WriteString("\r\n") }

// bulk writes a bulk string, in one append when the buffer has room for it.
func (w *writer) bulk(s string) {
	if w.bw.Available() >= prefixLen+len(s)+2 {
		b := append(w.bw.AvailableBuffer(), '$')
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, '\r', '\n')
		b = append(b, s...)
		b = append(b, '\r', '\n')
		_, _ = w.bw.Write(b)
		return
	}
	w.prefixed('$', int64(len(s)))
	_, _ = w.bw.WriteString(s)
	w.crlf()
}

// status writes a simple string; s must not hold CR or LF.
func (w *writer) status(s string) {
	_ = w.bw.WriteByte('+')
	_, _ = w.bw.WriteString(s)
	w.crlf()
}

// errorReply writes an error; CR and LF in its text become spaces, as in Redis.
func (w *writer) errorReply(s string) {
	if w.errs != nil {
		w.errs.add(s)
	}
	_ = w.bw.WriteByte('-')
	if bytes.ContainsAny([]byte(s), "\r\n") {
		b := []byte(s)
		for i, c := range b {
			if c == '\r' || c == '\n' {
				b[i] = ' '
			}
		}
		s = string(b)
	}
	_, _ = w.bw.WriteString(s)
	w.crlf()
}

func (w *writer) integer(n int64) { w.prefixed(':', n) }

func (w *writer) array(n int) { w.prefixed('*', int64(n)) }

// mapHeader starts a map of n pairs (an array of 2n elements in RESP2).
func (w *writer) mapHeader(n int) {
	if w.resp3 {
		w.prefixed('%', int64(n))
		return
	}
	w.prefixed('*', int64(2*n))
}

// setHeader starts a set (an array in RESP2).
func (w *writer) setHeader(n int) {
	if w.resp3 {
		w.prefixed('~', int64(n))
		return
	}
	w.prefixed('*', int64(n))
}

// verbatim writes text as a RESP3 verbatim string of format "txt" (INFO, CLIENT
// LIST), a bulk string in RESP2.
func (w *writer) verbatim(text string) {
	if !w.resp3 {
		w.bulk(text)
		return
	}
	w.prefixed('=', int64(len(text)+4))
	_, _ = w.bw.WriteString("txt:")
	_, _ = w.bw.WriteString(text)
	w.crlf()
}

// null writes a null bulk string, or a null array when array is set; RESP3 has one null.
func (w *writer) null(array bool) {
	switch {
	case w.resp3:
		_, _ = w.bw.WriteString("_\r\n")
	case array:
		_, _ = w.bw.WriteString("*-1\r\n")
	default:
		_, _ = w.bw.WriteString("$-1\r\n")
	}
}

// double writes a score already formatted as Redis does: a double in RESP3, a
// bulk string in RESP2.
func (w *writer) double(s string) {
	if !w.resp3 {
		w.bulk(s)
		return
	}
	_ = w.bw.WriteByte(',')
	_, _ = w.bw.WriteString(s)
	w.crlf()
}

// value writes a reply of [zlite.DB.Do] in the form sh declares; batch is set for
// a reply from inside EXEC.
func (w *writer) value(v any, sh serverapi.Shape, batch bool) {
	switch v := v.(type) {
	case nil:
		w.null(sh.NullArray && !(batch && sh.BatchNullBulk))
	case error:
		w.errorReply(v.Error())
	case int64:
		w.integer(v)
	case string:
		switch {
		case sh.Status:
			w.status(v)
		case sh.Doubles == serverapi.DoubleScalar:
			w.double(v)
		default:
			w.bulk(v)
		}
	case []any:
		if w.resp3 && sh.Aggregate != serverapi.Array {
			w.aggregate(v, sh.Aggregate)
			return
		}
		w.list(v, sh.Doubles)
	default:
		w.errorReply("ERR zlite server: unexpected reply type")
	}
}

// aggregate writes a RESP3 map, set or array of pairs (see serverapi.Aggregate)
// whose elements are plain.
func (w *writer) aggregate(v []any, a serverapi.Aggregate) {
	switch a {
	case serverapi.Map:
		w.mapHeader(len(v) / 2)
	case serverapi.SetOf:
		w.setHeader(len(v))
	case serverapi.Pairs:
		w.pairArrays(v, w.plain)
		return
	}
	for _, e := range v {
		w.plain(e)
	}
}

// pairArrays writes the flat [a, b, ...] reply v as RESP3's array of [a, b]
// arrays, each b written by second.
func (w *writer) pairArrays(v []any, second func(any)) {
	w.array(len(v) / 2)
	for i := 0; i+1 < len(v); i += 2 {
		w.array(2)
		w.plain(v[i])
		second(v[i+1])
	}
}

// list writes an array reply with doubles where d says.
func (w *writer) list(v []any, d serverapi.Doubles) {
	switch {
	case d == serverapi.DoublePairs && w.resp3:
		w.pairArrays(v, w.scoreElem)
		return
	case d == serverapi.DoubleMPop && len(v) == 2:
		w.array(2)
		w.plain(v[0])
		pairs, _ := v[1].([]any)
		w.array(len(pairs))
		for _, p := range pairs {
			w.list(p.([]any), serverapi.DoubleLast)
		}
		return
	}
	w.array(len(v))
	for i, e := range v {
		switch {
		case d == serverapi.DoubleEach,
			(d == serverapi.DoublePairs || d == serverapi.DoubleFlatPairs) && i%2 == 1,
			d == serverapi.DoubleLast && i == len(v)-1:
			w.scoreElem(e)
		default:
			w.plain(e)
		}
	}
}

// scoreElem writes an element that is a score (or a null).
func (w *writer) scoreElem(e any) {
	if s, ok := e.(string); ok {
		w.double(s)
		return
	}
	w.plain(e)
}

// plain writes an element with no doubles: strings are bulk strings.
func (w *writer) plain(e any) {
	switch e := e.(type) {
	case nil:
		w.null(false)
	case string:
		w.bulk(e)
	case int64:
		w.integer(e)
	case []any:
		w.list(e, serverapi.NoDoubles)
	default:
		w.value(e, serverapi.Shape{}, false)
	}
}

// pairBuf is a connection's [serverapi.PairWriter]: it keeps the member-score pairs
// that the commands of a batch write while they run (ZPOPMIN, ZPOPMAX), in their
// order, until the batch's replies are written, and is then reset. Each reply is a
// count in replies; each pair, the member's length as a uvarint, its bytes and the
// score's 8 bytes in data. Both are reused from batch to batch: a pair costs one
// copy of its member and no allocation once they have grown.
type pairBuf struct {
	data    []byte
	replies []int
	next    int // the next reply to write
	off     int // its first pair in data
}

// Pairs starts a reply of n pairs.
func (p *pairBuf) Pairs(n int) { p.replies = append(p.replies, n) }

// Pair adds a pair to the current reply, copying the member.
func (p *pairBuf) Pair(member string, score float64) {
	p.data = binary.AppendUvarint(p.data, uint64(len(member)))
	p.data = append(p.data, member...)
	p.data = binary.LittleEndian.AppendUint64(p.data, math.Float64bits(score))
}

// pair returns the next pair of the reply being written.
func (p *pairBuf) pair() (member []byte, score float64) {
	l, k := binary.Uvarint(p.data[p.off:])
	at := p.off + k
	member = p.data[at : at+int(l)]
	at += int(l)
	score = math.Float64frombits(binary.LittleEndian.Uint64(p.data[at:]))
	p.off = at + 8
	return member, score
}

// reset empties p for the next batch; it does not keep more than 64 KiB.
func (p *pairBuf) reset() {
	p.data, p.replies, p.next, p.off = p.data[:0], p.replies[:0], 0, 0
	if cap(p.data) > 64<<10 {
		p.data = nil
	}
}

// pairs writes the next reply of p, in the form sh declares: member-score pairs,
// nested in RESP3 when sh says so (ZPOPMIN with a count), else flat, the scores
// formatted as [zset.FormatScore] does; byte for byte what [writer.value] writes for
// [zlite.DB.Do]'s reply of the same command. The complexity is O(bytes written).
func (w *writer) pairs(p *pairBuf, sh serverapi.Shape) {
	n := p.replies[p.next]
	p.next++
	nested := w.resp3 && sh.Doubles == serverapi.DoublePairs
	if nested {
		w.array(n)
	} else {
		w.array(2 * n)
	}
	for range n {
		m, sc := p.pair()
		if nested {
			w.array(2)
		}
		w.bulkBytes(m)
		w.score(sc)
	}
}

// bulkBytes is bulk for a []byte.
func (w *writer) bulkBytes(s []byte) {
	w.prefixed('$', int64(len(s)))
	_, _ = w.bw.Write(s)
	w.crlf()
}

// scoreMax bounds the bytes of a score as a bulk string or a RESP3 double: the
// prefix, a length line and at most 25 bytes of text (see [zset.AppendScore]).
const scoreMax = 1 + 2 + 2 + 25 + 2

// score writes f formatted as [zset.FormatScore] does, as [writer.double] writes
// that text, without building a string when the buffer has room.
func (w *writer) score(f float64) {
	if w.bw.Available() < scoreMax {
		w.double(zset.FormatScore(f))
		return
	}
	b := w.bw.AvailableBuffer()
	if w.resp3 {
		b = append(b, ',')
		b = zset.AppendScore(b, f)
	} else {
		// The text's length comes first: format it after a 2-digit length, then
		// fix the length (at most 25 digits long).
		b = append(b, '$', '0', '0', '\r', '\n')
		b = zset.AppendScore(b, f)
		l := len(b) - 5
		if l < 10 {
			b[1] = byte('0' + l)
			copy(b[2:], b[3:])
			b = b[:len(b)-1]
		} else {
			b[1], b[2] = byte('0'+l/10), byte('0'+l%10)
		}
	}
	b = append(b, '\r', '\n')
	_, _ = w.bw.Write(b)
}
