import dspy
def main():
    print('café')
main()
