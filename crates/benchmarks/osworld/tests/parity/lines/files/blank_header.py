
#!/usr/bin/env python3
import dspy
def main():
    print('hi')
main()
