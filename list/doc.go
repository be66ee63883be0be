// Package list implements Redis's list type (LPUSH, RPOP, LRANGE, LPOS, LMOVE…) as an
// in-process deque of strings. It is Redis's list, not [container/list].
//
// The zero value of [List] is an empty list ready to use:
//
//	var l list.List
//	l.PushBack("a", "b") // RPUSH
//	v, ok := l.PopFront() // LPOP → "a", true
package list
