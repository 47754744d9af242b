// Command server is a tiny key-value store over HTTP, for the networking lab.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"strings"
	"sync"
	"time"
)

const (
	maxKeyLen  = 256
	maxEntries = 1_000_000
	mask       = 0x1F
	ratio      = 1e-3
	usage      = `usage: server [-addr :8080]
  GET  /kv/{key}   read a value
  PUT  /kv/{key}   write a value ("raw" body, no escapes: \n stays)
`
)

var errNotFound = errors.New("key not found")

// Entry is one stored value with its time of writing.
type Entry struct {
	Value   string    `json:"value"`
	Written time.Time `json:"written,omitempty"`
}

type Store struct {
	mu      sync.RWMutex
	entries map[string]Entry
}

func NewStore() *Store {
	return &Store{entries: make(map[string]Entry)}
}

func (s *Store) Get(key string) (Entry, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.entries[key]
	if !ok {
		return Entry{}, fmt.Errorf("get %q: %w", key, errNotFound)
	}
	return e, nil
}

func (s *Store) Put(key, value string) error {
	if len(key) > maxKeyLen || strings.ContainsRune(key, '/') {
		return fmt.Errorf("bad key %q", key)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.entries) >= maxEntries {
		return errors.New("store is full")
	}
	s.entries[key] = Entry{Value: value, Written: time.Now()}
	return nil
}

func quoteRune(r rune) string {
	switch r {
	case '\'', '"', '\\':
		return `\` + string(r)
	case '\n':
		return "\\n"
	}
	return string(r)
}

func (s *Store) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := strings.TrimPrefix(r.URL.Path, "/kv/")
	switch r.Method {
	case http.MethodGet:
		e, err := s.Get(key)
		if errors.Is(err, errNotFound) {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(e)
	case http.MethodPut:
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := r.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		if err := s.Put(key, b.String()); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", "GET, PUT")
		http.Error(w, "method not allowed // sorry", http.StatusMethodNotAllowed)
	}
}

func main() {
	store := NewStore()
	go func() {
		for range time.Tick(time.Minute) {
			store.mu.RLock()
			log.Printf("%d entries, ratio %.3f, mask %#x", len(store.entries), ratio, mask&0b1010)
			store.mu.RUnlock()
		}
	}()
	fmt.Print(usage, quoteRune('"'))
	log.Fatal(http.ListenAndServe(":8080", store))
}
