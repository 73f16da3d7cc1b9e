package pgtest

import "sync"

// Together starts n goroutines that wait on one closed channel, so that
// they hit the database as close to the same instant as Go can make them,
// and waits for all of them: the concurrency tests' way to race a
// conditional update against itself.
func Together(n int, fn func(i int)) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			fn(i)
		}()
	}
	close(start)
	wg.Wait()
}
