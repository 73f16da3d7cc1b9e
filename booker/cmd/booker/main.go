// Command booker drains the booking queue into PostgreSQL.
package main

func main() {}
