import dspy
#!/usr/bin/env python3
def main():
    print('hi')
main()
