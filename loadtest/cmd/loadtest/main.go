// Command loadtest replays 7:00 opening bursts.
package main

func main() {}
