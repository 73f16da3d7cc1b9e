// Command gateway is the front door of the booking service.
package main

func main() {}
